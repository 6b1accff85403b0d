import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryAttempt, DeliveryStatus } from './webhook-delivery.entity';
import { AUTO_DISABLE_THRESHOLD, AUTO_DISABLED_REASON, GONE_DISABLED_REASON } from './delivery/webhook-backoff.rules';
import { snippetExpiry } from './delivery/webhook-delivery.rules';
import { SelectedRow } from '../../platform/database/columns';
import { DeliveryRow, deliveryReturningList, deliveryRowSelectList, toDeliveryRow } from './webhook-delivery.row';

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
 * Statements that join a batch of ids also say `id = ANY(<the ids>)`: webhook_deliveries is partitioned
 * by id, and only a condition on the id itself lets the planner read just the partitions holding them.
 *
 * An attempt's life in webhook_deliveries: claimed for sending (so each attempt goes out once), its
 * claim renewed while it runs or given back when it is not sent, recorded with the subscription's
 * failure counter, or found lost when its claim ran out unrecorded.
 */
@Injectable()
export class WebhookAttemptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims attempts and loads them for sending, in one statement for a whole batch: each delivery
   * still pending at the expected attempt_count and not already claimed is marked in flight until
   * `leaseMs` from now (its worker renews the claim while the attempt runs) and comes back with its
   * subscription; undefined for one not claimed (gone, finished, a stale or second run of the attempt:
   * so no attempt is sent twice). The service adds the events (EventsService.findForDelivery).
   */
  async claimForSending(
    inputs: Array<{ id: string; expectedAttemptCount: number }>,
    leaseMs: number,
  ): Promise<Array<DeliveryRow | undefined>> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $3::float8 / 1000)
           FROM unnest($1::text[], $2::int[]) AS i(id, expected)
          WHERE d.id = i.id AND d.id = ANY($1::text[]) AND d.status = 'pending' AND d.attempt_count = i.expected AND d.in_flight_until IS NULL
         RETURNING ${deliveryReturningList('d')}
       )
       SELECT ${deliveryRowSelectList('c', 's')}
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id`,
      [inputs.map((input) => input.id), inputs.map((input) => input.expectedAttemptCount), leaseMs],
    );
    // A second input for the same attempt in one batch gets nothing: the first one holds the claim.
    const claimed = new Map(rows.map(toDeliveryRow).map((row) => [`${row.id}.${row.attemptCount}`, row]));
    return inputs.map((input) => {
      const key = `${input.id}.${input.expectedAttemptCount}`;
      const row = claimed.get(key);
      claimed.delete(key);
      return row;
    });
  }

  /**
   * A subscription's batch: claims, in ONE statement, up to `limit` of its due attempts (pending, due by
   * next_retry_at, not claimed) with ids from `fromId` on, oldest first, until `leaseMs` from now, and
   * loads them with the subscription. `FOR UPDATE SKIP LOCKED`: workers claiming the same subscription at
   * once take disjoint rows and never wait on each other. The id range keeps the scan to the partitions
   * (and the stretch of the delivery log index) holding the wake-up's deliveries and newer ones.
   */
  async claimDue(subscription: { accountId: string; id: string }, fromId: string, limit: number, leaseMs: number): Promise<DeliveryRow[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
          WHERE account_id = $1 AND subscription_id = $2 AND id >= $3 AND status = 'pending'
            AND in_flight_until IS NULL AND next_retry_at <= now()
          ORDER BY id LIMIT $4
            FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $5::float8 / 1000)
           FROM due WHERE d.id = due.id AND d.id >= $3
         RETURNING ${deliveryReturningList('d')}
       ), lease AS (
         -- The loop is alive: the sweep leaves this subscription's due deliveries to it until the lease ends.
         UPDATE webhook_subscriptions SET batch_lease_until = now() + make_interval(secs => $5::float8 / 1000)
          WHERE id = $2 AND account_id = $1
            AND (batch_lease_until IS NULL OR batch_lease_until < now() + make_interval(secs => $5::float8 / 2000))
       )
       SELECT ${deliveryRowSelectList('c', 's')}
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id
        ORDER BY c.id`,
      [subscription.accountId, subscription.id, fromId, limit, leaseMs],
    );
    return rows.map(toDeliveryRow);
  }

  /** Extends this worker's claims on attempts still running; one statement for all of them. */
  async renewClaims(ids: string[], leaseMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET in_flight_until = now() + make_interval(secs => $2::float8 / 1000)
        WHERE id = ANY($1::text[]) AND in_flight_until IS NOT NULL`,
      [ids, leaseMs],
    );
  }

  /** Gives up claims taken for attempts that were then not sent (their job is parked, or cannot be signed). */
  async releaseClaims(inputs: Array<{ id: string; expectedAttemptCount: number }>): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET in_flight_since = NULL, in_flight_until = NULL
         FROM unnest($1::text[], $2::int[]) AS i(id, expected)
        WHERE d.id = i.id AND d.id = ANY($1::text[]) AND d.status = 'pending' AND d.attempt_count = i.expected`,
      [inputs.map((input) => input.id), inputs.map((input) => input.expectedAttemptCount)],
    );
  }

  /** Attempts whose claim ran out with nobody recording them (their worker died), oldest first. */
  async lostAttempts(limit: number, accountIds?: string[]): Promise<Array<{ id: string; attemptCount: number; inFlightSince: Date }>> {
    const rows = await this.dataSource.query(
      `SELECT id, attempt_count, in_flight_since FROM webhook_deliveries
        WHERE in_flight_until < now() AND status = 'pending' AND ($2::text[] IS NULL OR account_id = ANY($2::text[]))
        ORDER BY in_flight_until LIMIT $1`,
      [limit, accountIds ?? null],
    );
    return rows.map((r: Record<string, unknown>) => ({
      id: r.id as string,
      attemptCount: r.attempt_count as number,
      inFlightSince: r.in_flight_since as Date,
    }));
  }

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
   */
  async recordAttempts(inputs: RecordAttemptInput[]): Promise<boolean[]> {
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
    }));
    const rows = await this.dataSource.query(
      `WITH input AS (
         SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
             AS x(id text, expected int, attempt jsonb, status text, next_retry_at timestamptz, reset boolean, claim text,
                  snippet_expires_at timestamptz)
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
         RETURNING wd.id, wd.subscription_id, i.reset, i.expected
       ), s AS (
         UPDATE webhook_subscriptions ws SET consecutive_failures = 0
          WHERE ws.id IN (SELECT subscription_id FROM d WHERE reset) AND ws.consecutive_failures <> 0
         RETURNING ws.id
       )
       SELECT d.id, d.expected FROM d`,
      [JSON.stringify(payload), inputs.map((input) => input.id)],
    );
    // A duplicate of the same attempt within one batch counts as not recorded (DISTINCT ON kept one).
    const recorded = new Set(rows.map((r: { id: string; expected: number }) => `${r.id}.${r.expected}`));
    return inputs.map((input) => recorded.delete(`${input.id}.${input.expectedAttemptCount}`));
  }
}

/** The SQL condition a record puts on the delivery's claim: `claim` is the SQL of the input's claim, `row` the table alias and dot. */
function claimCondition(claim: string, row = ''): string {
  return `CASE ${claim} WHEN 'held' THEN ${row}in_flight_until IS NOT NULL ELSE ${row}in_flight_until < now() END`;
}
