import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryStatus } from './webhook-delivery.entity';
import { createPartitions, deleteDefaultRowsBefore, dropPartitionsBefore, PartitionedTable } from '../../platform/database/partitions';

/**
 * Deliveries are range-partitioned by week on their own id, their keys (one per event and subscription)
 * on the event's id (migration PartitionedEventLog, docs/webhooks.md).
 */
const DELIVERIES: PartitionedTable = { table: 'webhook_deliveries', idPrefix: 'whd' };
const DELIVERY_KEYS: PartitionedTable = { table: 'webhook_delivery_keys', idPrefix: 'evt' };

/** A delivery names its subscription (ON DELETE CASCADE): an insert racing the subscription's deletion fails on it. */
export const DELIVERY_SUBSCRIPTION_CONSTRAINT = 'webhook_deliveries_subscription_id_fkey';

/** How long the sweep leaves the due first attempts of a subscription whose batch loop is alive to that loop. */
const BATCH_BACKLOG_MS = 30_000;

/** A subscription that may receive an event, before its filters are matched. */
export interface DispatchCandidate {
  eventId: string;
  subscriptionId: string;
  eventFilters: string[];
  ordered: boolean;
}

/**
 * Writes to webhook_deliveries (dispatch, test deliveries, retries, retention) and the sweep's read. An
 * attempt's claim is in engine/claims/webhook-claims.repository.ts, its record in
 * engine/settlement/webhook-attempts.repository.ts; the delivery log the API lists lives in
 * webhook-subscriptions.repository.ts.
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
      `SELECT e.event_id, s.id AS subscription_id, s.event_filters, s.ordered
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS e(event_id, account_id, created_at, event_name)
         JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.enabled AND s.created_at <= e.created_at
          AND (s.kind = 'platform' OR e.created_at < $5 OR e.event_name = 'legacy.validationError')
          AND (s.kind = 'platform' OR e.event_name NOT IN ('webhook.disabled', 'webhook.recovered', 'webhook.clientCertificateExpired'))`,
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
      ordered: r.ordered as boolean,
    }));
  }

  /**
   * One pending delivery per (event, subscription), due now; pairs that already have one are skipped.
   * Returns the rows actually inserted. Rows go in (event, subscription) order so concurrent
   * dispatchers take index locks in the same order.
   */
  async insertEventDeliveries(
    manager: EntityManager,
    rows: Array<{ id: string; accountId: string; subscriptionId: string; eventId: string; eventName: string; orderTx?: string }>,
  ): Promise<Array<{ id: string; accountId: string; subscriptionId: string; ordered: boolean }>> {
    if (rows.length === 0) return [];
    const sorted = [...rows].sort((a, b) => cmp(a.eventId, b.eventId) || cmp(a.subscriptionId, b.subscriptionId));
    // The key claims the (event, subscription) pair (webhook_delivery_keys: the unique constraint a
    // partitioned webhook_deliveries cannot hold); only pairs claimed here get their delivery.
    const inserted = await manager.query(
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) WITH ORDINALITY
             AS x(id, account_id, subscription_id, event_id, event_name, order_tx, n)
       ), claimed AS (
         INSERT INTO webhook_delivery_keys (account_id, event_id, subscription_id, delivery_id)
         SELECT account_id, event_id, subscription_id, id FROM x ORDER BY n
         ON CONFLICT (account_id, event_id, subscription_id) DO NOTHING
         RETURNING delivery_id
       )
       INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, status, next_retry_at, order_tx)
       SELECT id, account_id, subscription_id, event_id, event_name, false, 'pending', now(), order_tx
         FROM x WHERE id IN (SELECT delivery_id FROM claimed)
        ORDER BY n
       RETURNING id, account_id, subscription_id, order_tx IS NOT NULL AS ordered`,
      [
        sorted.map((r) => r.id),
        sorted.map((r) => r.accountId),
        sorted.map((r) => r.subscriptionId),
        sorted.map((r) => r.eventId),
        sorted.map((r) => r.eventName),
        sorted.map((r) => r.orderTx ?? null),
      ],
    );
    return inserted.map((r: Record<string, string | boolean>) => ({
      id: r.id as string,
      accountId: r.account_id as string,
      subscriptionId: r.subscription_id as string,
      ordered: r.ordered as boolean,
    }));
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
   * The retry sweep: pending deliveries overdue by more than `slackMs` and not in flight (their job was
   * lost), oldest first, optionally of some accounts only; not those of a subscription whose batch loop is
   * alive (its lease, moved forward by each claim: the loop takes them), as long as they are first attempts
   * due for less than BATCH_BACKLOG_MS (past that, whatever the loop left is the sweep's too). Of an
   * ordered subscription's order only its head: the rest wait for it, whatever their due time.
   */
  async overdue(
    slackMs: number,
    limit: number,
    accountIds?: string[],
  ): Promise<Array<{ id: string; subscriptionId: string; attemptCount: number }>> {
    const rows = await this.dataSource.query(
      `SELECT d.id, d.subscription_id, d.attempt_count FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_retry_at < now() - make_interval(secs => $1::float8 / 1000) AND d.in_flight_until IS NULL
          AND ($3::text[] IS NULL OR d.account_id = ANY($3::text[]))
          AND NOT (d.attempt_count = 0 AND d.next_retry_at > now() - make_interval(secs => $4::float8 / 1000)
                   AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.batch_lease_until > now()))
          AND (d.order_tx IS NULL OR NOT EXISTS (
                SELECT 1 FROM webhook_deliveries p
                 WHERE p.subscription_id = d.subscription_id AND p.order_tx IS NOT NULL AND p.status = 'pending'
                   AND (p.order_tx, p.event_id) < (d.order_tx, d.event_id)))
        ORDER BY d.next_retry_at LIMIT $2`,
      [slackMs, limit, accountIds ?? null, BATCH_BACKLOG_MS],
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
   * made due now. Guarded by the state the caller saw; false when it changed in between. Either way it
   * leaves its subscription's order, if it was in one (issue 31: a manual retry is outside the order).
   */
  async reopenNow(row: { accountId: string; id: string; status: DeliveryStatus; attemptCount: number }): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE webhook_deliveries
          SET next_retry_at = now(), status = 'pending', order_tx = NULL,
              retry_base = CASE WHEN status = 'pending' THEN retry_base ELSE attempt_count END,
              replay_id = CASE WHEN status = 'pending' THEN replay_id END
        WHERE account_id = $1 AND id = $2 AND status = $3 AND attempt_count = $4 AND in_flight_until IS NULL`,
      [row.accountId, row.id, row.status, row.attemptCount],
    );
    return affected > 0;
  }

  /**
   * `ordered` turned on or off (PATCH, in its transaction): the subscription's deliveries not attempted
   * yet in their round and not in flight join its order (at their event's place in the feed) or leave it;
   * one already attempted keeps going as it was. Returns the lowest id changed (where a wake-up starts), if any.
   */
  async setOrdered(manager: EntityManager, accountId: string, subscriptionId: string, ordered: boolean): Promise<string | null> {
    const [rows]: [Array<{ id: string }>, number] = await manager.query(
      ordered
        ? `UPDATE webhook_deliveries d SET order_tx = e.tx_id::text::bigint FROM events e
            WHERE d.account_id = $1 AND d.subscription_id = $2 AND d.status = 'pending' AND d.order_tx IS NULL
              AND d.attempt_count = d.retry_base AND d.in_flight_until IS NULL AND d.replay_id IS NULL
              AND e.id = d.event_id AND e.account_id = d.account_id
            RETURNING d.id`
        : `UPDATE webhook_deliveries d SET order_tx = NULL
            WHERE d.account_id = $1 AND d.subscription_id = $2 AND d.status = 'pending' AND d.order_tx IS NOT NULL
              AND d.attempt_count = d.retry_base AND d.in_flight_until IS NULL
            RETURNING d.id`,
      [accountId, subscriptionId],
    );
    return rows.reduce<string | null>((min, row) => (min === null || row.id < min ? row.id : min), null);
  }

  /** Partition upkeep: the partitions of the deliveries and of their keys for ids minted in [from, to]; returns those created. */
  async createPartitions(from: Date, to: Date): Promise<string[]> {
    return [
      ...(await createPartitions(this.dataSource, DELIVERIES, from, to)),
      ...(await createPartitions(this.dataSource, DELIVERY_KEYS, from, to)),
    ];
  }

  /**
   * Retention: drops the partitions of the deliveries (by the delivery's week) and of their keys (by
   * the event's week) that ended by `cutoff`; returns their names.
   */
  async dropPartitionsBefore(cutoff: Date): Promise<string[]> {
    const dropped = [
      ...(await dropPartitionsBefore(this.dataSource, DELIVERIES, cutoff)),
      ...(await dropPartitionsBefore(this.dataSource, DELIVERY_KEYS, cutoff)),
    ];
    return dropped.map((p) => p.name);
  }

  /** Retention of the default partitions (empty in normal operation): one batch of rows minted before `cutoff` from each; returns the deliveries deleted. */
  async deleteDefaultBatchBefore(cutoff: Date, batchSize: number): Promise<number> {
    await deleteDefaultRowsBefore(this.dataSource, DELIVERY_KEYS, 'event_id', cutoff, batchSize);
    return deleteDefaultRowsBefore(this.dataSource, DELIVERIES, 'id', cutoff, batchSize);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
