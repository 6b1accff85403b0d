import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';

/** One event of a feed linked to the booking it keeps in sync, with the stay the feed last listed. */
export interface FeedEntry {
  feedId: string;
  uid: string;
  accountId: string;
  propertyId: string;
  bookingId: string;
  startDate: Date;
  endDate: Date;
}

const ENTRY_COLUMNS = columns<FeedEntry>({
  feedId: 'feed_id',
  uid: 'uid',
  accountId: 'account_id',
  propertyId: 'property_id',
  bookingId: 'booking_id',
  startDate: 'start_date',
  endDate: 'end_date',
});
const COLUMNS = ENTRY_COLUMNS.selectList();

/** calendar_feed_entries: the (feed, UID) → booking map (migration 1764200000000). */
@Injectable()
export class CalendarFeedEntriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every entry of the feed: what a sync compares the calendar with. */
  async listByFeed(feedId: string): Promise<FeedEntry[]> {
    const rows: SelectedRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM calendar_feed_entries WHERE feed_id = $1`, [feedId]);
    return rows.map((row) => ENTRY_COLUMNS.toEntity(row));
  }

  async find(manager: EntityManager, feedId: string, uid: string): Promise<FeedEntry | undefined> {
    const [row]: SelectedRow[] = await manager.query(`SELECT ${COLUMNS} FROM calendar_feed_entries WHERE feed_id = $1 AND uid = $2`, [
      feedId,
      uid,
    ]);
    return row ? ENTRY_COLUMNS.toEntity(row) : undefined;
  }

  async upsert(manager: EntityManager, entry: FeedEntry): Promise<void> {
    await manager.query(
      `INSERT INTO calendar_feed_entries (feed_id, uid, account_id, property_id, booking_id, start_date, end_date)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (feed_id, uid) DO UPDATE SET booking_id = EXCLUDED.booking_id, start_date = EXCLUDED.start_date, end_date = EXCLUDED.end_date`,
      [entry.feedId, entry.uid, entry.accountId, entry.propertyId, entry.bookingId, entry.startDate, entry.endDate],
    );
  }

  async delete(manager: EntityManager, feedId: string, uid: string): Promise<void> {
    await manager.query(`DELETE FROM calendar_feed_entries WHERE feed_id = $1 AND uid = $2`, [feedId, uid]);
  }

  /**
   * Bookings other feeds of the property link to the same stay: the same check-in and check-out dates in
   * the property's time zone (two feeds may set other check-in times), oldest booking first.
   */
  async bookingsOfSameStay(
    manager: EntityManager,
    entry: Pick<FeedEntry, 'accountId' | 'propertyId' | 'feedId' | 'startDate' | 'endDate'>,
    timeZone: string,
  ): Promise<string[]> {
    const rows: Array<{ bookingId: string }> = await manager.query(
      `SELECT DISTINCT booking_id AS "bookingId" FROM calendar_feed_entries
        WHERE account_id = $1 AND property_id = $2 AND feed_id <> $5
          AND (start_date AT TIME ZONE $6)::date = ($3::timestamptz AT TIME ZONE $6)::date
          AND (end_date AT TIME ZONE $6)::date = ($4::timestamptz AT TIME ZONE $6)::date
          AND booking_id NOT IN (SELECT booking_id FROM calendar_feed_entries WHERE feed_id = $5)
        ORDER BY booking_id`,
      [entry.accountId, entry.propertyId, entry.startDate, entry.endDate, entry.feedId, timeZone],
    );
    return rows.map((row) => row.bookingId);
  }

  /** Whether any feed still links the booking. */
  async isLinked(manager: EntityManager, bookingId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM calendar_feed_entries WHERE booking_id = $1 LIMIT 1`, [bookingId]);
    return rows.length > 0;
  }

  async countByFeed(feedId: string): Promise<number> {
    const [row] = await this.dataSource.query(`SELECT count(*)::int AS n FROM calendar_feed_entries WHERE feed_id = $1`, [feedId]);
    return row.n;
  }
}
