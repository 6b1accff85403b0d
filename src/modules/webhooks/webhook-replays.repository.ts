import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ACCOUNT_OWNED_COLUMNS, columns, NewRow, SelectedRow, TIMESTAMP_COLUMNS } from '../../platform/database/columns';
import { DeliveryStatus } from './webhook-delivery.entity';
import { DELIVERY_ROW_COLUMNS } from './webhook-delivery.row';
import { ReplayStatus, WebhookReplayEntity } from './webhook-replay.entity';

/** Where a replay is in the event feed: the last event it processed. */
export interface ReplayCursor {
  txId: string;
  id: string;
}

/** The unique index allowing one running replay per subscription. */
export const RUNNING_REPLAY_CONSTRAINT = 'webhook_replays_running_uq';
/** A replay names its subscription (ON DELETE CASCADE): an insert racing the subscription's deletion fails on it. */
export const REPLAY_SUBSCRIPTION_CONSTRAINT = 'webhook_replays_subscription_id_fkey';

const REPLAY_COLUMNS = columns<WebhookReplayEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    ...TIMESTAMP_COLUMNS,
    subscriptionId: 'subscription_id',
    status: 'status',
    since: 'since',
    until: 'until',
    eventFilters: 'event_filters',
    onlyFailed: 'only_failed',
    total: 'total',
    done: 'done',
    skipped: 'skipped',
    cursorTxId: 'cursor_tx_id',
    cursorId: 'cursor_id',
    finishedAt: 'finished_at',
  },
  WebhookReplayEntity,
);
const { all: COLUMNS, toEntity } = REPLAY_COLUMNS;

/** What a replay's batch reads back of each delivery it opened (new, or opened again). */
const OPENED_COLUMNS = DELIVERY_ROW_COLUMNS.pick(['id', 'eventId', 'attemptCount']);
/** A delivery the replay opened and has not sent yet. */
const UNSENT_COLUMNS = DELIVERY_ROW_COLUMNS.pick(['id', 'attemptCount']);
/** An event's delivery status for a subscription: the key's event (as `k`), its delivery's status (as `d`). */
const EVENT_STATUS_COLUMNS = columns<{ eventId: string; status: DeliveryStatus }>({ eventId: 'k.event_id', status: 'd.status' });

/**
 * Replays (issue 13): their progress rows, and the writes a replay makes to webhook_deliveries (opening
 * deliveries of a batch in the transaction that advances its cursor). Every query is scoped by account.
 */
@Injectable()
export class WebhookReplaysRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(row: NewRow<WebhookReplayEntity, 'finishedAt' | 'cursorTxId' | 'cursorId'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_replays (id, account_id, subscription_id, status, since, until, event_filters, only_failed, total, done, skipped)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.id,
        row.accountId,
        row.subscriptionId,
        row.status,
        row.since,
        row.until,
        row.eventFilters,
        row.onlyFailed,
        row.total,
        row.done,
        row.skipped,
      ],
    );
  }

  async find(
    accountId: string,
    subscriptionId: string,
    id: string,
    manager?: EntityManager,
    lock = false,
  ): Promise<WebhookReplayEntity | null> {
    const [row]: SelectedRow[] = await (manager ?? this.dataSource).query(
      `SELECT ${COLUMNS} FROM webhook_replays WHERE account_id = $1 AND subscription_id = $2 AND id = $3 ${lock ? 'FOR UPDATE' : ''}`,
      [accountId, subscriptionId, id],
    );
    return row ? toEntity(row) : null;
  }

  /** By id alone (the worker's job carries the id; the row says whose it is). */
  async findById(id: string): Promise<WebhookReplayEntity | null> {
    const [row]: SelectedRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM webhook_replays WHERE id = $1`, [id]);
    return row ? toEntity(row) : null;
  }

  /** The subscription's running replay, if any. */
  async runningOf(accountId: string, subscriptionId: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT id FROM webhook_replays WHERE account_id = $1 AND subscription_id = $2 AND status = 'running'`,
      [accountId, subscriptionId],
    );
    return row?.id;
  }

  /** Running replays not advanced for `idleMs` (their job was lost): the sweep enqueues them again. */
  async stalled(idleMs: number, limit: number, accountIds?: string[]): Promise<string[]> {
    const rows = await this.dataSource.query(
      `SELECT id FROM webhook_replays
        WHERE status = 'running' AND updated_at < now() - make_interval(secs => $1::float8 / 1000)
          AND ($3::text[] IS NULL OR account_id = ANY($3::text[]))
        ORDER BY updated_at LIMIT $2`,
      [idleMs, limit, accountIds ?? null],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  /** Moves the cursor past a batch and counts it, in the batch's transaction. */
  async advance(manager: EntityManager, id: string, cursor: ReplayCursor, emitted: number, skipped: number): Promise<void> {
    await manager.query(
      `UPDATE webhook_replays SET cursor_tx_id = $2::xid8, cursor_id = $3, done = done + $4, skipped = skipped + $5, updated_at = now()
        WHERE id = $1`,
      [id, cursor.txId, cursor.id, emitted, skipped],
    );
  }

  /** Ends a running replay. */
  async finish(id: string, status: Exclude<ReplayStatus, 'running'>): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_replays SET status = $2, finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'running'`,
      [id, status],
    );
  }

  /** Deliveries the replay opened whose first attempt of this round was never made nor claimed, in event order. */
  async unsent(accountId: string, replayId: string): Promise<Array<{ id: string; attemptCount: number }>> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${UNSENT_COLUMNS.all} FROM webhook_deliveries
        WHERE replay_id = $1 AND status = 'pending' AND account_id = $2 AND attempt_count = retry_base AND in_flight_until IS NULL
        ORDER BY event_id`,
      [replayId, accountId],
    );
    return rows.map(UNSENT_COLUMNS.toEntity);
  }

  /**
   * Of these deliveries, those still pending (an ordered subscription's replay sends the next one only once
   * the one before it has ended: delivered, or failed for good); with none given, the replay's own
   * deliveries already attempted in this round and pending (what a resumed run waits for first).
   */
  async stillPending(accountId: string, ids: string[] | { replayId: string }): Promise<string[]> {
    const rows: Array<{ id: string }> = Array.isArray(ids)
      ? await this.dataSource.query(
          `SELECT id FROM webhook_deliveries WHERE id = ANY($1::text[]) AND account_id = $2 AND status = 'pending'`,
          [ids, accountId],
        )
      : await this.dataSource.query(
          `SELECT id FROM webhook_deliveries
            WHERE replay_id = $1 AND status = 'pending' AND account_id = $2 AND attempt_count > retry_base`,
          [ids.replayId, accountId],
        );
    return rows.map((row) => row.id);
  }

  /** Marks a running replay alive (a batch with nothing to emit still advances; the sweep leaves live replays alone). */
  async touch(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhook_replays SET updated_at = now() WHERE id = $1 AND status = 'running'`, [id]);
  }

  /** The status of this subscription's delivery of each event that has one. */
  async statusesOfEvents(
    manager: EntityManager,
    accountId: string,
    subscriptionId: string,
    eventIds: string[],
  ): Promise<Map<string, DeliveryStatus>> {
    if (eventIds.length === 0) return new Map();
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${EVENT_STATUS_COLUMNS.all} FROM webhook_delivery_keys k
         JOIN webhook_deliveries d ON d.id = k.delivery_id AND d.account_id = k.account_id
        WHERE k.account_id = $3 AND k.event_id = ANY($1::text[]) AND k.subscription_id = $2`,
      [eventIds, subscriptionId, accountId],
    );
    return new Map(rows.map(EVENT_STATUS_COLUMNS.toEntity).map((r) => [r.eventId, r.status]));
  }

  /**
   * A replay's batch: for each event, a new pending delivery, or its finished delivery opened again for a
   * new round (same id, so the same webhook-id; retry budget from here), due at `dueAt`. A delivery
   * still pending is left alone (it is on its way). Returns the deliveries opened, in the order given.
   */
  async openForReplay(
    manager: EntityManager,
    replayId: string,
    rows: Array<{ id: string; accountId: string; subscriptionId: string; eventId: string; eventName: string; dueAt: Date }>,
  ): Promise<Array<{ id: string; eventId: string; attemptCount: number }>> {
    if (rows.length === 0) return [];
    const opened: SelectedRow[] = await manager.query(
      // The pair's key (webhook_delivery_keys) says whether the event has a delivery for the subscription:
      // claimed here, a new delivery; taken, its delivery opened again unless it is pending. A key whose
      // delivery is gone (deleted on its own) is taken over by the new delivery.
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) WITH ORDINALITY
             AS x(id, account_id, subscription_id, event_id, event_name, due_at, n)
       ), claimed AS (
         INSERT INTO webhook_delivery_keys AS k (account_id, event_id, subscription_id, delivery_id)
         SELECT account_id, event_id, subscription_id, id FROM x ORDER BY n
         ON CONFLICT (account_id, event_id, subscription_id) DO UPDATE SET delivery_id = EXCLUDED.delivery_id
          WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = k.delivery_id)
         RETURNING k.delivery_id
       ), inserted AS (
         INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, status, next_retry_at, replay_id)
         SELECT id, account_id, subscription_id, event_id, event_name, false, 'pending', due_at, $7
           FROM x WHERE id IN (SELECT delivery_id FROM claimed)
         RETURNING ${OPENED_COLUMNS.all}
       ), reopened AS (
         UPDATE webhook_deliveries d
            SET status = 'pending', next_retry_at = x.due_at, retry_base = d.attempt_count, replay_id = $7, order_tx = NULL
           FROM x JOIN webhook_delivery_keys k
                ON k.account_id = x.account_id AND k.event_id = x.event_id AND k.subscription_id = x.subscription_id
          WHERE d.id = k.delivery_id AND d.account_id = x.account_id AND d.status <> 'pending'
         RETURNING ${OPENED_COLUMNS.selectList('d')}
       )
       SELECT * FROM inserted UNION ALL SELECT * FROM reopened`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.accountId),
        rows.map((r) => r.subscriptionId),
        rows.map((r) => r.eventId),
        rows.map((r) => r.eventName),
        rows.map((r) => r.dueAt),
        replayId,
      ],
    );
    const byEvent = new Map(opened.map(OPENED_COLUMNS.toEntity).map((r) => [r.eventId, r]));
    return rows.flatMap((r) => {
      const row = byEvent.get(r.eventId);
      return row ? [{ id: row.id, eventId: r.eventId, attemptCount: row.attemptCount }] : [];
    });
  }

  /** How many deliveries a replay opened have ended each way so far. */
  async replayOutcomes(accountId: string, replayId: string): Promise<{ delivered: number; failed: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE status = 'failed_permanent')::int AS failed
         FROM webhook_deliveries WHERE replay_id = $1 AND account_id = $2`,
      [replayId, accountId],
    );
    return { delivered: row.delivered, failed: row.failed };
  }
}
