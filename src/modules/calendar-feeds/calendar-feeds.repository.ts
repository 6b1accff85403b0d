import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';
import { returnedRows } from '../../platform/database/query-result';
import { CalendarFeedEntity } from './calendar-feed.entity';
import type { FeedStatus } from './calendar-feed.rules';

/** The unique (account_id, property_id, url) index: one feed per link and property. */
export const FEED_URL_UNIQUE_INDEX = 'calendar_feeds_property_url_uq';

/** Advisory-lock class of a property's calendar work (feed count on create, a sync's booking writes). */
const PROPERTY_LOCK_CLASS = 0x43414c46; // 'CALF'

/** The settings PATCH may change. */
export interface FeedSettingsChanges {
  label?: string | null;
  checkInTime?: string;
  checkOutTime?: string;
  defaultNumberOfGuests?: number;
  skipBlocked?: boolean;
}

/** What a finished sync writes on its feed (and the claim it gives back). */
export interface FeedSyncOutcome {
  status: FeedStatus;
  consecutiveFailures: number;
  lastError: string | null;
  /** Set on success only (a failure keeps the previous values). */
  success?: {
    lastWarning: string | null;
    skippedEvents: number;
    bookingsImported: number;
    etag: string | null;
    lastModified: string | null;
  };
  /** From the database's now(), the clock of last_synced_at and of the scan. */
  nextSyncInMs: number;
}

export interface DueFeed {
  id: string;
  accountId: string;
  nextSyncAt: Date;
}

const DUE_COLUMNS = columns<DueFeed>({ id: 'id', accountId: 'account_id', nextSyncAt: 'next_sync_at' });

/**
 * Feed queries, every one scoped by account except the worker's: the scan for due feeds and the claim,
 * which go by feed id across accounts.
 */
@Injectable()
export class CalendarFeedsRepository {
  constructor(@InjectRepository(CalendarFeedEntity) private readonly feeds: Repository<CalendarFeedEntity>) {}

  get manager(): EntityManager {
    return this.feeds.manager;
  }

  /** Serialises a property's calendar work (feed count on create, a sync's booking writes) until the transaction ends. */
  async lockProperty(manager: EntityManager, propertyId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock($1::int, hashtext($2))`, [PROPERTY_LOCK_CLASS, propertyId]);
  }

  listByProperty(accountId: string, propertyId: string, manager: EntityManager = this.manager): Promise<CalendarFeedEntity[]> {
    return manager.getRepository(CalendarFeedEntity).find({ where: { accountId, propertyId }, order: { id: 'ASC' } });
  }

  find(accountId: string, id: string, manager: EntityManager = this.manager): Promise<CalendarFeedEntity | null> {
    return manager.getRepository(CalendarFeedEntity).findOne({ where: { accountId, id } });
  }

  /** The worker's read of a feed it holds the claim on (any account). */
  findById(id: string): Promise<CalendarFeedEntity | null> {
    return this.feeds.findOne({ where: { id } });
  }

  async findIdByUrl(accountId: string, propertyId: string, url: string): Promise<string | undefined> {
    const row = await this.feeds.findOne({ where: { accountId, propertyId, url }, select: { id: true } });
    return row?.id;
  }

  async insert(
    manager: EntityManager,
    row: Omit<CalendarFeedEntity, 'createdAt' | 'updatedAt' | 'nextSyncAt'>,
  ): Promise<CalendarFeedEntity> {
    await manager.getRepository(CalendarFeedEntity).insert({ ...row, nextSyncAt: () => 'now()' } as never);
    return (await this.find(row.accountId, row.id, manager))!;
  }

  async update(manager: EntityManager, accountId: string, id: string, changes: FeedSettingsChanges): Promise<CalendarFeedEntity | null> {
    if (Object.keys(changes).length > 0) {
      // New times or blocked handling change what the same calendar means: the next sync reads it again (no 304).
      const reread = changes.checkInTime !== undefined || changes.checkOutTime !== undefined || changes.skipBlocked !== undefined;
      await manager
        .getRepository(CalendarFeedEntity)
        .update({ accountId, id }, { ...changes, ...(reread ? { etag: null, lastModified: null } : {}), updatedAt: () => 'now()' });
    }
    return this.find(accountId, id, manager);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.feeds.delete({ accountId, id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * POST …/sync: due now (the scan's fallback when the queued job is lost), and asked for: a sync that
   * claimed the feed before this request keeps it due now when it finishes (finishSync).
   */
  async markDueNow(accountId: string, id: string): Promise<boolean> {
    const result = await this.feeds.update({ accountId, id }, { nextSyncAt: () => 'now()', syncRequestedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** Feeds due a sync and not being synced, soonest first. */
  async due(limit: number): Promise<DueFeed[]> {
    const rows: SelectedRow[] = await this.feeds.query(
      `SELECT ${DUE_COLUMNS.selectList()} FROM calendar_feeds
        WHERE next_sync_at <= now() AND (sync_claimed_until IS NULL OR sync_claimed_until < now())
        ORDER BY next_sync_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => DUE_COLUMNS.toEntity(row));
  }

  /**
   * Takes the feed for one sync across every worker: the row is updated only when no unexpired claim
   * is on it, and PostgreSQL's row lock makes a concurrent claim wait for this one and then see it
   * (so exactly one of two racing workers gets the row). The lease bounds a claim whose worker died.
   * The sync downloads after its claim, so it serves every request made before: it clears sync_requested_at.
   */
  async claim(id: string, leaseMs: number): Promise<boolean> {
    const result: unknown = await this.feeds.query(
      `UPDATE calendar_feeds SET sync_claimed_until = now() + make_interval(secs => $2::float8 / 1000), sync_requested_at = NULL
        WHERE id = $1 AND (sync_claimed_until IS NULL OR sync_claimed_until < now())
        RETURNING id`,
      [id, leaseMs],
    );
    return returnedRows(result).length > 0;
  }

  /** Gives the claim back without recording a sync (the worker is stopping). */
  async release(id: string): Promise<void> {
    await this.feeds.query(`UPDATE calendar_feeds SET sync_claimed_until = NULL WHERE id = $1`, [id]);
  }

  /**
   * Records a sync's outcome and gives the claim back, in the caller's transaction (with the feed's event,
   * when one is due). The next sync is at the interval, or now when POST …/sync asked for one after this
   * sync's claim (sync_requested_at): the scan then picks the feed up again, so that request is not lost.
   */
  async finishSync(manager: EntityManager, id: string, outcome: FeedSyncOutcome): Promise<CalendarFeedEntity | null> {
    const success = outcome.success;
    await manager.query(
      `UPDATE calendar_feeds SET
          status = $2, consecutive_failures = $3, last_error = $4, sync_claimed_until = NULL, sync_requested_at = NULL,
          next_sync_at = CASE WHEN sync_requested_at IS NULL THEN now() + make_interval(secs => $5::float8 / 1000) ELSE now() END,
          last_synced_at = CASE WHEN $6 THEN now() ELSE last_synced_at END,
          last_warning = CASE WHEN $6 THEN $7 ELSE last_warning END,
          skipped_events = CASE WHEN $6 THEN $8 ELSE skipped_events END,
          bookings_imported = CASE WHEN $6 THEN $9 ELSE bookings_imported END,
          etag = CASE WHEN $6 THEN $10 ELSE etag END,
          last_modified = CASE WHEN $6 THEN $11 ELSE last_modified END
        WHERE id = $1`,
      [
        id,
        outcome.status,
        outcome.consecutiveFailures,
        outcome.lastError,
        outcome.nextSyncInMs,
        success !== undefined,
        success?.lastWarning ?? null,
        success?.skippedEvents ?? 0,
        success?.bookingsImported ?? 0,
        success?.etag ?? null,
        success?.lastModified ?? null,
      ],
    );
    return manager.getRepository(CalendarFeedEntity).findOne({ where: { id } });
  }
}
