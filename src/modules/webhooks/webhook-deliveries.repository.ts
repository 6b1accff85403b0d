import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryAttempt, DeliveryStatus } from './webhook-delivery.entity';
import { AUTO_DISABLE_THRESHOLD, AUTO_DISABLED_REASON, GONE_DISABLED_REASON } from './delivery/webhook-backoff.rules';
import { snippetExpiry } from './delivery/webhook-delivery.rules';
import { DeliveryRecord, DeliveryRow, toDeliveryRow } from './webhook-delivery.row';

/** A subscription that may receive an event, before its filters are matched. */
export interface DispatchCandidate {
  eventId: string;
  subscriptionId: string;
  eventFilters: string[];
}

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
 * Every write to webhook_deliveries (dispatch, test deliveries, attempts, retention) and the delivery
 * engine's reads. The delivery log the API lists lives in subscriptions/webhook-subscriptions.repository.ts.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * For each event, the enabled subscriptions of its account created at or before it. The events come
   * from EventsService.lockUndispatched with their exact created_at text, compared here in SQL at
   * microsecond precision (JS dates would round). Event filters are matched by the caller.
   * The legacy webhook takes events created before `legacySunsetAt`, and after it only the final
   * legacy.validationError of batches failed by the retirement (docs/legacy.md); never the operational
   * webhook.* events (an extension the legacy contract does not have).
   */
  async candidateSubscriptions(
    manager: EntityManager,
    events: Array<{ id: string; accountId: string; eventName: string; createdAtExact: string }>,
    legacySunsetAt: Date,
  ): Promise<DispatchCandidate[]> {
    if (events.length === 0) return [];
    const rows = await manager.query(
      `SELECT e.event_id, s.id AS subscription_id, s.event_filters
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS e(event_id, account_id, created_at, event_name)
         JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.enabled AND s.created_at <= e.created_at
          AND (s.kind = 'platform' OR e.created_at < $5 OR e.event_name = 'legacy.validationError')
          AND (s.kind = 'platform' OR e.event_name NOT IN ('webhook.disabled', 'webhook.recovered'))`,
      [
        events.map((e) => e.id),
        events.map((e) => e.accountId),
        events.map((e) => e.createdAtExact),
        events.map((e) => e.eventName),
        legacySunsetAt,
      ],
    );
    return rows.map((r: Record<string, unknown>) => ({
      eventId: r.event_id as string,
      subscriptionId: r.subscription_id as string,
      eventFilters: r.event_filters as string[],
    }));
  }

  /**
   * One pending delivery per (event, subscription), due now; pairs that already have one are skipped.
   * Returns the rows actually inserted. Rows go in (event, subscription) order so concurrent
   * dispatchers take index locks in the same order.
   */
  async insertEventDeliveries(
    manager: EntityManager,
    rows: Array<{ id: string; accountId: string; subscriptionId: string; eventId: string; eventName: string }>,
  ): Promise<Array<{ id: string; subscriptionId: string }>> {
    if (rows.length === 0) return [];
    const sorted = [...rows].sort((a, b) => cmp(a.eventId, b.eventId) || cmp(a.subscriptionId, b.subscriptionId));
    const inserted = await manager.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, status, next_retry_at)
       SELECT id, account_id, subscription_id, event_id, event_name, false, 'pending', now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
              AS x(id, account_id, subscription_id, event_id, event_name, n)
        ORDER BY n
       ON CONFLICT (event_id, subscription_id) WHERE event_id IS NOT NULL DO NOTHING
       RETURNING id, subscription_id`,
      [
        sorted.map((r) => r.id),
        sorted.map((r) => r.accountId),
        sorted.map((r) => r.subscriptionId),
        sorted.map((r) => r.eventId),
        sorted.map((r) => r.eventName),
      ],
    );
    return inserted.map((r: Record<string, string>) => ({ id: r.id, subscriptionId: r.subscription_id }));
  }

  /** A synthetic delivery: no event row, its envelope in test_payload, due now (next_retry_at) so the sweep finds it if the enqueue is lost. */
  async insertTestDelivery(
    manager: EntityManager,
    row: { id: string; accountId: string; subscriptionId: string; eventName: string; payload: Record<string, unknown>; dueAt: Date },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, test_payload, status, next_retry_at)
       VALUES ($1, $2, $3, NULL, $4, true, $5, 'pending', $6)`,
      [row.id, row.accountId, row.subscriptionId, row.eventName, JSON.stringify(row.payload), row.dueAt],
    );
  }

  /**
   * Deliveries with their subscription, in the order asked; undefined for one that is gone (its
   * subscription was deleted: cascade). One query for a whole batch of concurrent attempts; the
   * service adds the events (EventsService.findForDelivery).
   */
  async loadDeliveries(ids: string[]): Promise<Array<DeliveryRow | undefined>> {
    const rows = await this.dataSource.query(
      `SELECT d.id, d.account_id, d.subscription_id, d.event_id, d.event_name, d.test, d.test_payload, d.status,
              d.attempt_count, d.retry_base, d.in_flight_until IS NOT NULL AS in_flight, d.created_at,
              s.url, s.enabled, s.max_retries, s.signing_secret, s.previous_secret, s.previous_secret_expires_at,
              s.dark_since IS NOT NULL AS dark
         FROM webhook_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.account_id = d.account_id
        WHERE d.id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map<string, DeliveryRow>((rows as DeliveryRecord[]).map((r) => [r.id, toDeliveryRow(r)]));
    return ids.map((id) => byId.get(id));
  }

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
    const rows: DeliveryRecord[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET in_flight_since = now(), in_flight_until = now() + make_interval(secs => $3::float8 / 1000)
           FROM unnest($1::text[], $2::int[]) AS i(id, expected)
          WHERE d.id = i.id AND d.status = 'pending' AND d.attempt_count = i.expected AND d.in_flight_until IS NULL
         RETURNING d.id, d.account_id, d.subscription_id, d.event_id, d.event_name, d.test, d.test_payload, d.status,
                   d.attempt_count, d.retry_base, d.created_at
       )
       SELECT c.*, true AS in_flight,
              s.url, s.enabled, s.max_retries, s.signing_secret, s.previous_secret, s.previous_secret_expires_at,
              s.dark_since IS NOT NULL AS dark
         FROM claimed c
         JOIN webhook_subscriptions s ON s.id = c.subscription_id AND s.account_id = c.account_id`,
      [inputs.map((input) => input.id), inputs.map((input) => input.expectedAttemptCount), leaseMs],
    );
    // A second input for the same attempt in one batch gets nothing: the first one holds the claim.
    const claimed = new Map(rows.map((r) => [`${r.id}.${r.attempt_count}`, toDeliveryRow(r)]));
    return inputs.map((input) => {
      const key = `${input.id}.${input.expectedAttemptCount}`;
      const row = claimed.get(key);
      claimed.delete(key);
      return row;
    });
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
        WHERE d.id = i.id AND d.status = 'pending' AND d.attempt_count = i.expected`,
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
    const [row] = await (manager ?? this.dataSource).query(
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
          WHERE wd.id = i.id AND wd.status = 'pending' AND wd.attempt_count = i.expected AND ${claimCondition('i.claim', 'wd.')}
         RETURNING wd.id, wd.subscription_id, i.reset, i.expected
       ), s AS (
         UPDATE webhook_subscriptions ws SET consecutive_failures = 0
          WHERE ws.id IN (SELECT subscription_id FROM d WHERE reset) AND ws.consecutive_failures <> 0
         RETURNING ws.id
       )
       SELECT d.id, d.expected FROM d`,
      [JSON.stringify(payload)],
    );
    // A duplicate of the same attempt within one batch counts as not recorded (DISTINCT ON kept one).
    const recorded = new Set(rows.map((r: { id: string; expected: number }) => `${r.id}.${r.expected}`));
    return inputs.map((input) => recorded.delete(`${input.id}.${input.expectedAttemptCount}`));
  }

  /**
   * The retry sweep: pending deliveries overdue by more than `slackMs` and not in flight (their job was
   * lost), oldest first, optionally of some accounts only.
   */
  async overdue(
    slackMs: number,
    limit: number,
    accountIds?: string[],
  ): Promise<Array<{ id: string; subscriptionId: string; attemptCount: number }>> {
    const rows = await this.dataSource.query(
      `SELECT id, subscription_id, attempt_count FROM webhook_deliveries
        WHERE status = 'pending' AND next_retry_at < now() - make_interval(secs => $1::float8 / 1000) AND in_flight_until IS NULL
          AND ($3::text[] IS NULL OR account_id = ANY($3::text[]))
        ORDER BY next_retry_at LIMIT $2`,
      [slackMs, limit, accountIds ?? null],
    );
    return rows.map((r: Record<string, unknown>) => ({
      id: r.id as string,
      subscriptionId: r.subscription_id as string,
      attemptCount: r.attempt_count as number,
    }));
  }

  /**
   * Retention of response snippets: in one batch of deliveries holding a snippet that has turned
   * `SNIPPET_RETENTION_MS` old by `now` (index webhook_deliveries_snippets_idx), sets the snippets of
   * the attempts that old to null and moves `snippets_expire_at` to the next one kept (or null).
   * Returns how many deliveries changed.
   */
  async dropExpiredSnippets(now: Date, retentionMs: number, batchSize: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries WHERE snippets_expire_at <= $1 LIMIT $3
       ), cutoff AS (SELECT $1::timestamptz - make_interval(secs => $2::float8 / 1000) AS at)
       UPDATE webhook_deliveries d
          SET attempts = COALESCE((
                SELECT jsonb_agg(CASE WHEN (a->>'at')::timestamptz <= cutoff.at AND a->>'responseSnippet' IS NOT NULL
                                      THEN jsonb_set(a, '{responseSnippet}', 'null') ELSE a END ORDER BY n)
                  FROM jsonb_array_elements(d.attempts) WITH ORDINALITY AS t(a, n)), '[]'::jsonb),
              snippets_expire_at = (
                SELECT min((a->>'at')::timestamptz) + make_interval(secs => $2::float8 / 1000)
                  FROM jsonb_array_elements(d.attempts) AS t(a)
                 WHERE (a->>'at')::timestamptz > cutoff.at AND COALESCE(a->>'responseSnippet', '') <> '')
         FROM due, cutoff
        WHERE d.id = due.id`,
      [now, retentionMs, batchSize],
    );
    return result[1];
  }

  /**
   * Opens a delivery for an attempt now (POST …/retry): a finished one starts a new round of attempts
   * (same webhook-id, the next attempt number, a fresh retry budget), a pending one not in flight is
   * made due now. Guarded by the state the caller saw; false when it changed in between.
   */
  async reopenNow(row: { accountId: string; id: string; status: DeliveryStatus; attemptCount: number }): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE webhook_deliveries
          SET next_retry_at = now(), status = 'pending',
              retry_base = CASE WHEN status = 'pending' THEN retry_base ELSE attempt_count END,
              replay_id = CASE WHEN status = 'pending' THEN replay_id END
        WHERE account_id = $1 AND id = $2 AND status = $3 AND attempt_count = $4 AND in_flight_until IS NULL`,
      [row.accountId, row.id, row.status, row.attemptCount],
    );
    return affected > 0;
  }

  /** Retention: deletes one batch of deliveries created before `cutoff`; returns the count. */
  async deleteBatchCreatedBefore(cutoff: Date, batchSize: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < $1 LIMIT $2)`,
      [cutoff, batchSize],
    );
    return result[1];
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The SQL condition a record puts on the delivery's claim: `claim` is the SQL of the input's claim, `row` the table alias and dot. */
function claimCondition(claim: string, row = ''): string {
  return `CASE ${claim} WHEN 'held' THEN ${row}in_flight_until IS NOT NULL ELSE ${row}in_flight_until < now() END`;
}
