import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ACCOUNT_OWNED_COLUMNS, columns, SelectedRow } from '../../platform/database/columns';
import { createPartitions, deleteDefaultRowsBefore, dropPartitionsBefore, PartitionedTable } from '../../platform/database/partitions';
import { SqlRepository } from '../../platform/database/sql-repository';
import { EventEntity } from './event.entity';

/** The event log is range-partitioned by week on its id (migration PartitionedEventLog, docs/events.md). */
const EVENTS_TABLE: PartitionedTable = { table: 'events', idPrefix: 'evt' };

const EVENT_COLUMNS = columns<EventEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    eventName: 'event_name',
    clientRequestId: 'client_request_id',
    apiRequestId: 'api_request_id',
    results: 'results',
    createdAt: 'created_at',
    dispatchedAt: 'dispatched_at',
    traceparent: 'traceparent',
  },
  EventEntity,
);
// Positions are read as text: a JS number cannot hold every xid8.
const POSITION_COLUMNS = columns<EventPosition>({ txId: 'tx_id::text', id: 'id' });
// created_at as PostgreSQL prints it, microseconds kept (see UndispatchedEvent).
const UNDISPATCHED_COLUMNS = columns<UndispatchedEvent>({
  ...ACCOUNT_OWNED_COLUMNS,
  eventName: 'event_name',
  clientRequestId: 'client_request_id',
  createdAtExact: 'created_at::text',
  txId: 'tx_id::text',
  traceparent: 'traceparent',
});
const WINDOW_COLUMNS = columns<Omit<WindowEvent, 'position'> & EventPosition>({
  id: 'id',
  eventName: 'event_name',
  clientRequestId: 'client_request_id',
  txId: 'tx_id::text',
});

/**
 * Event-log queries. The feed is ordered by (writing transaction id, id) and only
 * shows rows of transactions older than every transaction still running
 * (pg_snapshot_xmin). An event that commits late therefore can never appear
 * behind a cursor a client already holds: polling with `after` loses nothing.
 */
@Injectable()
export class EventsRepository extends SqlRepository {
  async insert(manager: EntityManager, event: Omit<EventEntity, 'createdAt' | 'dispatchedAt'>): Promise<EventEntity> {
    const [row] = await manager.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, traceparent)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${EVENT_COLUMNS.selectList(undefined, ['createdAt'])}`,
      [
        event.id,
        event.accountId,
        event.eventName,
        event.clientRequestId,
        event.apiRequestId,
        JSON.stringify(event.results),
        event.traceparent,
      ],
    );
    return Object.assign(new EventEntity(), event, { createdAt: row.createdAt, dispatchedAt: null });
  }

  /**
   * Webhook dispatch: locks the given events that are not dispatched yet, in id order. SKIP LOCKED: an event
   * another dispatcher holds is left to it (or to the sweep, should that transaction roll back).
   */
  async lockUndispatched(manager: EntityManager, ids: string[]): Promise<UndispatchedEvent[]> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${UNDISPATCHED_COLUMNS.selectList()} FROM events
        WHERE id = ANY($1::text[]) AND dispatched_at IS NULL
        ORDER BY id FOR UPDATE SKIP LOCKED`,
      [ids],
    );
    return rows.map((row) => UNDISPATCHED_COLUMNS.toEntity(row));
  }

  /** Webhook delivery: these events of these accounts (pairs), in no particular order; one query for a batch. */
  async findByAccountAndId(refs: Array<{ accountId: string; id: string }>): Promise<EventEntity[]> {
    if (refs.length === 0) return [];
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS.selectList('e')}
         FROM unnest($1::text[], $2::text[]) AS ref(account_id, id)
         JOIN events e ON e.id = ref.id AND e.account_id = ref.account_id`,
      [refs.map((ref) => ref.accountId), refs.map((ref) => ref.id)],
    );
    return rows.map((row) => EVENT_COLUMNS.toEntity(row));
  }

  async markDispatched(manager: EntityManager, ids: string[]): Promise<void> {
    await manager.query(`UPDATE events SET dispatched_at = now() WHERE id = ANY($1::text[])`, [ids]);
  }

  /** The dispatch sweep: events the fast path missed (older than `graceMs`, oldest first), optionally of some accounts only. */
  async undispatchedIds(graceMs: number, limit: number, accountIds?: string[]): Promise<string[]> {
    const rows = await this.dataSource.query(
      `SELECT id FROM events
        WHERE dispatched_at IS NULL AND created_at < now() - make_interval(secs => $1::float8 / 1000)
          AND ($3::text[] IS NULL OR account_id = ANY($3::text[]))
        ORDER BY created_at LIMIT $2`,
      [graceMs, limit, accountIds ?? null],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  /** Metrics: seconds since the oldest event not yet dispatched was written (0 when none); one index probe. */
  async oldestUndispatchedAgeSeconds(): Promise<number> {
    const rows = await this.dataSource.query(
      `SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age FROM events WHERE dispatched_at IS NULL`,
    );
    return Number(rows[0]?.age ?? 0);
  }

  /** Partition upkeep: the event log's partitions for ids minted in [from, to] (partitions.rules.ts); returns those created. */
  createPartitions(from: Date, to: Date): Promise<string[]> {
    return createPartitions(this.dataSource, EVENTS_TABLE, from, to);
  }

  /** Retention: drops the event log's partitions whose week ended by `cutoff`; returns their names. */
  async dropPartitionsBefore(cutoff: Date): Promise<string[]> {
    return (await dropPartitionsBefore(this.dataSource, EVENTS_TABLE, cutoff)).map((p) => p.name);
  }

  /** Retention of the default partition (empty in normal operation): one batch of its events minted before `cutoff`; returns the count. */
  deleteDefaultBatchBefore(cutoff: Date, batchSize: number): Promise<number> {
    return deleteDefaultRowsBefore(this.dataSource, EVENTS_TABLE, 'id', cutoff, batchSize);
  }

  /** The feed position of an event of this account, or undefined when it does not exist (anymore). */
  async positionOf(accountId: string, eventId: string): Promise<{ txId: string; id: string } | undefined> {
    const [row]: SelectedRow[] = await this.dataSource.query(
      `SELECT ${POSITION_COLUMNS.selectList()} FROM events WHERE account_id = $1 AND id = $2`,
      [accountId, eventId],
    );
    return row ? POSITION_COLUMNS.toEntity(row) : undefined;
  }

  async listAfter(accountId: string, after: { txId: string; id: string } | undefined, take: number): Promise<EventEntity[]> {
    const params: unknown[] = [accountId, take];
    let keyset = '';
    if (after) {
      params.push(after.txId, after.id);
      keyset = 'AND (tx_id, id) > ($3::xid8, $4)';
    }
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS.selectList()}
         FROM events
        WHERE account_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot()) ${keyset}
        ORDER BY tx_id, id
        LIMIT $2`,
      params,
    );
    return rows.map((row) => EVENT_COLUMNS.toEntity(row));
  }

  /**
   * The account's events newest first (the console's events page), optionally of one name, before the
   * event `before` (keyset on the time-ordered id). For reading, not for following: unlike the feed it
   * does not hold back events behind older running transactions, so a page may gain an older event later.
   */
  async listNewestFirst(
    accountId: string,
    eventName: string | undefined,
    before: string | undefined,
    take: number,
  ): Promise<EventEntity[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS.selectList()}
         FROM events
        WHERE account_id = $1 AND ($2::text IS NULL OR event_name = $2) AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC
        LIMIT $4`,
      [accountId, eventName ?? null, before ?? null, take],
    );
    return rows.map((row) => EVENT_COLUMNS.toEntity(row));
  }

  /**
   * Webhook replay: the account's committed events created in [since, until), in feed order after
   * `after` (served by events_feed_idx). Names and positions only: the deliveries load the events
   * themselves. Unlike the feed it does not wait behind the oldest running transaction (the horizon is
   * the whole cluster's: one long transaction anywhere would hide recent events, and a replay would
   * finish without them): an event whose transaction commits after the replay read past its place is
   * dispatched to the subscription like any new event, so reading ahead of the horizon loses nothing.
   */
  async windowAfter(
    accountId: string,
    window: { since: Date; until: Date },
    after: EventPosition | undefined,
    take: number,
  ): Promise<WindowEvent[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${WINDOW_COLUMNS.selectList()} FROM events
        WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
          AND ($5::xid8 IS NULL OR (tx_id, id) > ($5::xid8, $6))
        ORDER BY tx_id, id
        LIMIT $4`,
      [accountId, window.since, window.until, take, after?.txId ?? null, after?.id ?? null],
    );
    return rows.map((row) => {
      const { txId, ...event } = WINDOW_COLUMNS.toEntity(row);
      return { ...event, position: { txId, id: event.id } };
    });
  }
}

/** A place in the feed order. */
export interface EventPosition {
  txId: string;
  id: string;
}

/** An event of a replay window: enough to choose and create its delivery. */
export interface WindowEvent {
  id: string;
  eventName: string;
  clientRequestId: string;
  position: EventPosition;
}

/**
 * An event locked for webhook dispatch. `createdAtExact` is the timestamptz as PostgreSQL prints it,
 * microseconds kept (a JS Date would round them away), for comparing with other timestamps in SQL.
 */
export interface UndispatchedEvent {
  id: string;
  accountId: string;
  eventName: string;
  /** Dispatch leaves an operational webhook event out of the subscription it is about (its clientRequestId). */
  clientRequestId: string;
  createdAtExact: string;
  /** Its writing transaction (as text: a JS number cannot hold every xid8): an ordered subscription's deliveries follow the feed by it. */
  txId: string;
  /** Its writer's trace context (EventEntity.traceparent): dispatch's span continues it. */
  traceparent: string | null;
}
