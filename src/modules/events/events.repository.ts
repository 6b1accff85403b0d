import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { createPartitions, deleteDefaultRowsBefore, dropPartitionsBefore, PartitionedTable } from '../../platform/database/partitions';
import { EventEntity } from './event.entity';

/** The event log is range-partitioned by week on its id (migration PartitionedEventLog, docs/events.md). */
const EVENTS_TABLE: PartitionedTable = { table: 'events', idPrefix: 'evt' };

/**
 * Event-log queries. The feed is ordered by (writing transaction id, id) and only
 * shows rows of transactions older than every transaction still running
 * (pg_snapshot_xmin). An event that commits late therefore can never appear
 * behind a cursor a client already holds: polling with `after` loses nothing.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, event: Omit<EventEntity, 'createdAt' | 'dispatchedAt'>): Promise<EventEntity> {
    const [row] = await manager.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [event.id, event.accountId, event.eventName, event.clientRequestId, event.apiRequestId, JSON.stringify(event.results)],
    );
    return Object.assign(new EventEntity(), event, { createdAt: row.created_at, dispatchedAt: null });
  }

  /**
   * Webhook dispatch: locks the given events that are not dispatched yet, in id order. SKIP LOCKED: an event
   * another dispatcher holds is left to it (or to the sweep, should that transaction roll back).
   */
  async lockUndispatched(manager: EntityManager, ids: string[]): Promise<UndispatchedEvent[]> {
    const rows = await manager.query(
      `SELECT id, account_id, event_name, client_request_id, created_at::text AS created_at_exact FROM events
        WHERE id = ANY($1::text[]) AND dispatched_at IS NULL
        ORDER BY id FOR UPDATE SKIP LOCKED`,
      [ids],
    );
    return rows.map((r: Record<string, string>) => ({
      id: r.id,
      accountId: r.account_id,
      eventName: r.event_name,
      clientRequestId: r.client_request_id,
      createdAtExact: r.created_at_exact,
    }));
  }

  /** Webhook delivery: these events of these accounts (pairs), in no particular order; one query for a batch. */
  async findByAccountAndId(refs: Array<{ accountId: string; id: string }>): Promise<EventEntity[]> {
    if (refs.length === 0) return [];
    const rows = await this.dataSource.query(
      `SELECT e.id, e.account_id, e.event_name, e.client_request_id, e.api_request_id, e.results, e.created_at
         FROM unnest($1::text[], $2::text[]) AS ref(account_id, id)
         JOIN events e ON e.id = ref.id AND e.account_id = ref.account_id`,
      [refs.map((ref) => ref.accountId), refs.map((ref) => ref.id)],
    );
    return rows.map(toEvent);
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
    const [row] = await this.dataSource.query(`SELECT tx_id::text AS tx_id, id FROM events WHERE account_id = $1 AND id = $2`, [
      accountId,
      eventId,
    ]);
    return row ? { txId: row.tx_id, id: row.id } : undefined;
  }

  async listAfter(accountId: string, after: { txId: string; id: string } | undefined, take: number): Promise<EventEntity[]> {
    const params: unknown[] = [accountId, take];
    let keyset = '';
    if (after) {
      params.push(after.txId, after.id);
      keyset = 'AND (tx_id, id) > ($3::xid8, $4)';
    }
    const rows = await this.dataSource.query(
      `SELECT id, account_id, event_name, client_request_id, api_request_id, results, created_at
         FROM events
        WHERE account_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot()) ${keyset}
        ORDER BY tx_id, id
        LIMIT $2`,
      params,
    );
    return rows.map(toEvent);
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
    const rows = await this.dataSource.query(
      `SELECT id, account_id, event_name, client_request_id, api_request_id, results, created_at
         FROM events
        WHERE account_id = $1 AND ($2::text IS NULL OR event_name = $2) AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC
        LIMIT $4`,
      [accountId, eventName ?? null, before ?? null, take],
    );
    return rows.map(toEvent);
  }

  /**
   * Webhook replay: the account's events created in [since, until), in feed order after `after`
   * (served by events_feed_idx; only transactions every reader sees, like the feed). Names and
   * positions only: the deliveries load the events themselves.
   */
  async windowAfter(
    accountId: string,
    window: { since: Date; until: Date },
    after: EventPosition | undefined,
    take: number,
  ): Promise<WindowEvent[]> {
    const rows = await this.dataSource.query(
      `SELECT id, event_name, client_request_id, tx_id::text AS tx_id FROM events
        WHERE account_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
          AND created_at >= $2 AND created_at < $3
          AND ($5::xid8 IS NULL OR (tx_id, id) > ($5::xid8, $6))
        ORDER BY tx_id, id
        LIMIT $4`,
      [accountId, window.since, window.until, take, after?.txId ?? null, after?.id ?? null],
    );
    return rows.map((r: Record<string, string>) => ({
      id: r.id,
      eventName: r.event_name,
      clientRequestId: r.client_request_id,
      position: { txId: r.tx_id, id: r.id },
    }));
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
}

function toEvent(r: Record<string, unknown>): EventEntity {
  return Object.assign(new EventEntity(), {
    id: r.id,
    accountId: r.account_id,
    eventName: r.event_name,
    clientRequestId: r.client_request_id,
    apiRequestId: r.api_request_id,
    results: r.results,
    createdAt: r.created_at,
  });
}
