import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SelectedRow } from '../../../../platform/database/columns';
import { Sql } from '../../../../platform/database/sql';
import { DeliveryAttempt, DeliveryStatus } from '../../webhook-delivery.entity';
import { DeliveryRow, deliveryReturningList, deliveryRowSelectList, toDeliveryRow } from '../../webhook-delivery.row';
import { CLAIM_LEASE_MS } from '../claims/webhook-claims.service';
import { orderHead, turnHasCome } from '../claims/webhook-order.sql';
import { AUTO_DISABLED_REASON, GONE_DISABLED_REASON } from '../../subscriptions/webhook-subscription.rules';
import { snippetExpiry } from '../../webhook-retention.rules';
import { AUTO_DISABLE_THRESHOLD } from './webhook-backoff.rules';

export interface RecordAttemptInput {
  id: string;
  /** attempt_count the attempt was made against: a stale or duplicate job records nothing. */
  expectedAttemptCount: number;
  attempt: DeliveryAttempt;
  status: DeliveryStatus;
  nextRetryAt: Date | null;
  /** `gone`: a 410 Gone, which disables the subscription at once (recordCountedFailure). */
  counter: 'reset' | 'increment' | 'none' | 'gone';
  /**
   * A permanent failure answered with Retry-After: the end of its back-pressure window. It counts
   * towards auto-disable only when no window of the subscription is open, and opens this one.
   */
  backpressureUntil?: Date | null;
  /**
   * The claim this record settles: `held`, an attempt this worker claimed (and sent, or stopped: URL
   * rule broken, subscription disabled); `expired`, an attempt whose claim ran out before anyone
   * recorded it (its worker died).
   */
  claim: AttemptClaim;
  /** The attempt ends its delivery's place in its subscription's order: the record claims the next one too (recordAttempts). */
  claimNext?: boolean;
}

/**
 * What a batched record did for one input: recorded or not and, when it was asked to claim the next
 * delivery of the order, that delivery (null: none whose turn has come).
 */
export interface RecordedAttempt {
  recorded: boolean;
  next?: DeliveryRow | null;
}

export type AttemptClaim = 'held' | 'expired';

export interface RecordAttemptResult {
  recorded: boolean;
  /** True when this attempt's failure disabled the subscription (auto-disable, or a 410 Gone). */
  autoDisabled: boolean;
  /** The subscription's disabledReason when this attempt disabled it. */
  disabledReason?: string;
}

/**
 * An attempt's record in webhook_deliveries: appended to the delivery's attempts and the delivery moved
 * on, with the subscription's failure counter, in one statement guarded by the attempt's claim
 * (WebhookClaimsRepository takes, renews and gives back claims). Statements that join a batch of ids
 * also say `id = ANY(<the ids>)`: webhook_deliveries is partitioned by id, and only a condition on the
 * id itself lets the planner read just the partitions holding them. The batched record is prepared once
 * per connection (Sql.prepared), as the claims are.
 */
@Injectable()
export class WebhookAttemptsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {}

  /**
   * Records a permanently failed non-test attempt (counter effect 'increment' or 'gone') in ONE
   * statement together with the subscription's failure counter: the increment that reaches the
   * threshold disables the subscription, and so does a 410 Gone, at once. A failure answered with
   * Retry-After (`backpressureUntil`) counts only when the subscription has no back-pressure window
   * open, and opens one. The row lock on the subscription makes this exact with any number of workers;
   * `disabled_by` names the attempt that disabled the subscription, so exactly one record reports it.
   * Guarded by status, attempt_count and the claim: a duplicate job of the same attempt records nothing.
   */
  async recordCountedFailure(input: RecordAttemptInput, manager?: EntityManager): Promise<RecordAttemptResult> {
    if (input.counter !== 'increment' && input.counter !== 'gone') {
      throw new Error('recordCountedFailure takes increments and gone only (recordAttempts takes the rest)');
    }
    // Expressions over the subscription's row as it was (every SET expression reads the old row).
    const inc = `(CASE WHEN $9::timestamptz IS NOT NULL AND ws.backpressure_until > now() THEN 0 ELSE 1 END)`;
    const disables = `($10 = 'gone' OR ws.consecutive_failures + ${inc} >= ${AUTO_DISABLE_THRESHOLD})`;
    const disablingNow = `(ws.enabled AND ${disables})`;
    const db = manager ?? this.dataSource;
    // The subscription's row lock first, in the caller's transaction: the record statement's snapshot then
    // sees every counted failure committed before it (concurrent failures of one batch, each answered with
    // Retry-After, counted more than once when the lock was only taken inside the statement).
    if (manager) {
      await db.query(
        `SELECT 1 FROM webhook_subscriptions WHERE id = (SELECT subscription_id FROM webhook_deliveries WHERE id = $1) FOR UPDATE`,
        [input.id],
      );
    }
    const [row] = await db.query(
      `WITH d AS (
         UPDATE webhook_deliveries
            SET attempts = attempts || $3::jsonb,
                attempt_count = attempt_count + 1,
                first_attempt_at = COALESCE(first_attempt_at, $4),
                last_attempt_at = $4,
                status = $5,
                next_retry_at = $6,
                in_flight_since = NULL,
                in_flight_until = NULL,
                snippets_expire_at = COALESCE(snippets_expire_at, $8::timestamptz)
          WHERE id = $1 AND status = 'pending' AND attempt_count = $2 AND ${claimCondition('$7::text')}
         RETURNING subscription_id
       ), s AS (
         UPDATE webhook_subscriptions ws
            SET consecutive_failures = ws.consecutive_failures + ${inc},
                enabled = ws.enabled AND NOT ${disables},
                disabled_reason = CASE WHEN ${disablingNow}
                                       THEN CASE WHEN $10 = 'gone' THEN '${GONE_DISABLED_REASON}' ELSE '${AUTO_DISABLED_REASON}' END
                                       ELSE ws.disabled_reason END,
                disabled_by = CASE WHEN ${disablingNow} THEN $11 ELSE ws.disabled_by END,
                dark_since = CASE WHEN ${disablingNow} THEN now() ELSE ws.dark_since END,
                updated_at = CASE WHEN ${disablingNow} THEN now() ELSE ws.updated_at END,
                backpressure_until = CASE WHEN $9::timestamptz IS NOT NULL AND ${inc} = 1 THEN $9::timestamptz
                                          ELSE ws.backpressure_until END
           FROM d WHERE ws.id = d.subscription_id
         RETURNING NOT ws.enabled AND ws.disabled_by = $11 AS disabled_now, ws.disabled_reason
       )
       SELECT (SELECT count(*) FROM d)::int AS recorded, COALESCE((SELECT bool_or(disabled_now) FROM s), false) AS auto_disabled,
              (SELECT disabled_reason FROM s LIMIT 1) AS disabled_reason`,
      [
        input.id,
        input.expectedAttemptCount,
        JSON.stringify([input.attempt]),
        input.attempt.at,
        input.status,
        input.nextRetryAt,
        input.claim,
        snippetExpiry(input.attempt),
        input.backpressureUntil ?? null,
        input.counter,
        `${input.id}.${input.expectedAttemptCount}`,
      ],
    );
    const autoDisabled = row.auto_disabled === true;
    return { recorded: row.recorded > 0, autoDisabled, ...(autoDisabled ? { disabledReason: row.disabled_reason } : {}) };
  }

  /**
   * Records many attempts whose counter effect is 'none' or 'reset' (the common case: a delivered or
   * retried attempt) in one statement: each appended and its delivery moved on, guarded by status,
   * attempt_count and the claim like recordCountedFailure, and the failure counter reset on a delivered non-test
   * delivery (only written when not already 0, so a busy subscription's row is not rewritten per
   * delivery). Returns, per input, whether it was recorded. Increments go one by one through
   * recordCountedFailure, whose threshold check needs exact ordering.
   *
   * An input with `claimNext` (its delivery leaves its subscription's order: delivered, or failed for good)
   * also claims the next one in that order, in this same statement, when its turn has come
   * (webhook-order.sql.ts, looking past the one recorded here): an order is a chain of one round trip per
   * delivery. That one comes back loaded with its subscription (`next`), claimed until `leaseMs` from now.
   */
  async recordAttempts(inputs: RecordAttemptInput[], leaseMs = CLAIM_LEASE_MS): Promise<RecordedAttempt[]> {
    if (inputs.some((input) => input.counter === 'increment' || input.counter === 'gone')) {
      throw new Error('recordAttempts takes no increments');
    }
    const payload = inputs.map((input) => ({
      id: input.id,
      expected: input.expectedAttemptCount,
      attempt: input.attempt,
      status: input.status,
      next_retry_at: input.nextRetryAt,
      reset: input.counter === 'reset',
      claim: input.claim,
      snippet_expires_at: snippetExpiry(input.attempt),
      claim_next: input.claimNext === true,
    }));
    const rows = await this.sql.prepared<SelectedRow>(
      'webhook_record_attempts',
      `WITH input AS (
         SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
             AS x(id text, expected int, attempt jsonb, status text, next_retry_at timestamptz, reset boolean, claim text,
                  snippet_expires_at timestamptz, claim_next boolean)
          ORDER BY id
       ), d AS (
         UPDATE webhook_deliveries wd
            SET attempts = wd.attempts || jsonb_build_array(i.attempt),
                attempt_count = wd.attempt_count + 1,
                first_attempt_at = COALESCE(wd.first_attempt_at, (i.attempt->>'at')::timestamptz),
                last_attempt_at = (i.attempt->>'at')::timestamptz,
                status = i.status,
                next_retry_at = i.next_retry_at,
                in_flight_since = NULL,
                in_flight_until = NULL,
                snippets_expire_at = COALESCE(wd.snippets_expire_at, i.snippet_expires_at)
           FROM input i
          WHERE wd.id = i.id AND wd.id = ANY($2::text[]) AND wd.status = 'pending' AND wd.attempt_count = i.expected AND ${claimCondition('i.claim', 'wd.')}
         RETURNING wd.id, wd.account_id, wd.subscription_id, i.reset, i.expected, i.claim_next
       ), s AS (
         UPDATE webhook_subscriptions ws SET consecutive_failures = 0
          WHERE ws.id IN (SELECT subscription_id FROM d WHERE reset) AND ws.consecutive_failures <> 0
         RETURNING ws.id
       ), head AS (
         SELECT d.id AS ended_id, d.account_id, h.id
           FROM d CROSS JOIN LATERAL (${orderHead('d.subscription_id', 'd.id')}) h
          WHERE d.claim_next
       ), next AS (
         UPDATE webhook_deliveries n
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $3::float8 / 1000)
           FROM head
          WHERE n.id = head.id AND n.account_id = head.account_id AND n.status = 'pending' AND n.in_flight_until IS NULL
            AND n.next_retry_at <= now() AND ${turnHasCome('n', 'head.ended_id')}
         RETURNING head.ended_id, ${deliveryReturningList('n')}
       )
       SELECT d.id AS "recordedId", d.expected AS "recordedExpected", ${deliveryRowSelectList('c', 'ns')}
         FROM d
         LEFT JOIN next c ON c.ended_id = d.id
         LEFT JOIN webhook_subscriptions ns ON ns.id = c.subscription_id AND ns.account_id = c.account_id`,
      [JSON.stringify(payload), inputs.map((input) => input.id), leaseMs],
    );
    // A duplicate of the same attempt within one batch counts as not recorded (DISTINCT ON kept one).
    const recorded = new Map(
      rows.map((row) => [`${row.recordedId as string}.${row.recordedExpected as number}`, row.id ? toDeliveryRow(row) : null]),
    );
    return inputs.map((input) => {
      const key = `${input.id}.${input.expectedAttemptCount}`;
      if (!recorded.has(key)) return { recorded: false };
      const next = recorded.get(key);
      recorded.delete(key);
      return input.claimNext ? { recorded: true, next: next ?? null } : { recorded: true };
    });
  }
}

/** The SQL condition a record puts on the delivery's claim: `claim` is the SQL of the input's claim, `row` the table alias and dot. */
function claimCondition(claim: string, row = ''): string {
  return `CASE ${claim} WHEN 'held' THEN ${row}in_flight_until IS NOT NULL ELSE ${row}in_flight_until < now() END`;
}
