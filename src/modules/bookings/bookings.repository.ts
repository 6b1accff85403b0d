import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SqlRepository } from '../../platform/database/sql-repository';
import { ACCOUNT_OWNED_COLUMNS, columns, NewRow, SelectedRow, TIMESTAMP_COLUMNS } from '../../platform/database/columns';
import { returnedRows, SqlParams } from '../../platform/database/query-result';
import { DateWindow } from '../../platform/pagination/date-window';
import { BookingEntity } from './booking.entity';

const BOOKING_COLUMNS = columns<BookingEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    ...TIMESTAMP_COLUMNS,
    propertyId: 'property_id',
    sourceBookingId: 'source_booking_id',
    status: 'status',
    startDate: 'start_date',
    endDate: 'end_date',
    title: 'title',
    numberOfGuests: 'number_of_guests',
    guestDetails: 'guest_details',
    tags: 'tags',
    otherAttributes: 'other_attributes',
  },
  BookingEntity,
);
const { all: COLUMNS, toEntity } = BOOKING_COLUMNS;

/** What create writes. */
export type NewBooking = NewRow<BookingEntity>;

/** What an update, a date change or a cancellation may change. */
export type BookingChanges = Partial<
  Pick<BookingEntity, 'status' | 'startDate' | 'endDate' | 'title' | 'numberOfGuests' | 'guestDetails' | 'tags' | 'otherAttributes'>
>;

/** The changes stored as jsonb (sent as JSON text). */
const JSON_CHANGES: ReadonlySet<keyof BookingChanges> = new Set(['guestDetails', 'otherAttributes']);

export interface BookingListFilter {
  window: DateWindow;
  status?: number;
  propertyId?: string;
  /** The last row of the previous page: its startDate (ISO, to the millisecond) and id. */
  after?: { startDate: string; id: string };
}

/** Row locks: FOR UPDATE before a change; FOR KEY SHARE to hold a booking referenced from another row. */
export type BookingLock = 'update' | 'keyShare';

const LOCK_SQL: Record<BookingLock, string> = { update: 'FOR UPDATE', keyShare: 'FOR KEY SHARE' };

/** Booking queries; every one is scoped by account (another account's booking simply does not match). */
@Injectable()
export class BookingsRepository extends SqlRepository {
  /**
   * Inserts the booking unless the account already has its sourceBookingId (then undefined). ON CONFLICT
   * waits for a concurrent twin's transaction, so exactly one of two concurrent creates gets a row.
   */
  async insertUnlessSourceTaken(manager: EntityManager, values: NewBooking): Promise<BookingEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `INSERT INTO bookings (id, account_id, property_id, source_booking_id, status, start_date, end_date, title,
                             number_of_guests, guest_details, tags, other_attributes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12::jsonb)
       ON CONFLICT (account_id, source_booking_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        values.id,
        values.accountId,
        values.propertyId,
        values.sourceBookingId,
        values.status,
        values.startDate,
        values.endDate,
        values.title,
        values.numberOfGuests,
        JSON.stringify(values.guestDetails),
        values.tags,
        values.otherAttributes === null ? null : JSON.stringify(values.otherAttributes),
      ],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  async findOne(manager: EntityManager, accountId: string, id: string, lock?: BookingLock): Promise<BookingEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM bookings WHERE account_id = $1 AND id = $2 ${lock ? LOCK_SQL[lock] : ''}`,
      [accountId, id],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  async findBySourceBookingId(
    manager: EntityManager,
    accountId: string,
    sourceBookingId: string,
    lock?: BookingLock,
  ): Promise<BookingEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM bookings WHERE account_id = $1 AND source_booking_id = $2 ${lock ? LOCK_SQL[lock] : ''}`,
      [accountId, sourceBookingId],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /** Applies the changes (at least one), bumps updated_at, and returns the row after the update. */
  async update(manager: EntityManager, accountId: string, id: string, changes: BookingChanges): Promise<BookingEntity> {
    const sets: string[] = [];
    const params: unknown[] = [accountId, id];
    for (const [field, value] of Object.entries(changes) as Array<[keyof BookingChanges, unknown]>) {
      if (value === undefined) continue;
      const column = BOOKING_COLUMNS.column(field);
      const json = JSON_CHANGES.has(field);
      params.push(json && value !== null ? JSON.stringify(value) : value);
      sets.push(`${column} = $${params.length}${json ? '::jsonb' : ''}`);
    }
    const result: unknown = await manager.query(
      `UPDATE bookings SET ${sets.join(', ')}, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      params,
    );
    return toEntity(returnedRows<SelectedRow>(result)[0]);
  }

  async delete(manager: EntityManager, accountId: string, id: string): Promise<void> {
    await manager.query(`DELETE FROM bookings WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /** The property's bookings, locked FOR UPDATE in id order (its deletion hook decides on the latest versions). */
  async lockByProperty(manager: EntityManager, accountId: string, propertyId: string): Promise<BookingEntity[]> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM bookings WHERE account_id = $1 AND property_id = $2 ORDER BY id FOR UPDATE`,
      [accountId, propertyId],
    );
    return rows.map(toEntity);
  }

  async deleteByIds(manager: EntityManager, accountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await manager.query(`DELETE FROM bookings WHERE account_id = $1 AND id = ANY($2::text[])`, [accountId, ids]);
  }

  /**
   * One page of the bookings overlapping the window (start < dateTo and end > dateFrom), ordered by
   * (start_date, id), after the cursor; `take` is limit + 1. The window is split at dateFrom so that
   * both halves are bounded index scans (docs/bookings.md, "The list and its indexes"):
   *   1. stays under way at dateFrom (start < dateFrom < end): the GiST stabbing query on
   *      (account_id, stay), index-only, sorted in memory; all of them sort before part 2;
   *   2. stays starting in [dateFrom, dateTo): a B-tree range scan in list order, stopped by LIMIT.
   * Only the page's keys come from the indexes; the page's rows are then read by primary key.
   */
  async listPage(accountId: string, filter: BookingListFilter, take: number): Promise<BookingEntity[]> {
    const params = new SqlParams(accountId, filter.window.from, filter.window.to, take);
    let filters = '';
    if (filter.propertyId !== undefined) filters += ` AND property_id = ${params.add(filter.propertyId)}`;
    if (filter.status !== undefined) filters += ` AND status = ${params.add(filter.status)}`;
    const after = filter.after ? { startDate: params.add(filter.after.startDate), id: params.add(filter.after.id) } : undefined;
    const parts: string[] = [];
    // Part 1 only while the cursor is still among the stays under way at dateFrom.
    if (!filter.after || new Date(filter.after.startDate).getTime() < filter.window.from.getTime()) {
      const keyset = after ? ` AND (lower(stay), id) > (${after.startDate}::timestamptz, ${after.id})` : '';
      parts.push(`(SELECT id, lower(stay) AS start_date FROM bookings
                    WHERE account_id = $1 AND stay @> $2::timestamptz AND lower(stay) < $2${filters}${keyset}
                    ORDER BY lower(stay), id LIMIT $4)`);
    }
    const keyset = after ? ` AND (start_date, id) > (${after.startDate}::timestamptz, ${after.id})` : '';
    parts.push(`(SELECT id, start_date FROM bookings
                  WHERE account_id = $1 AND start_date >= $2 AND start_date < $3${filters}${keyset}
                  ORDER BY start_date, id LIMIT $4)`);
    const keys = parts.length === 1 ? parts[0] : `${parts.join(' UNION ALL ')} ORDER BY start_date, id LIMIT $4`;
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${BOOKING_COLUMNS.selectList('b')}
         FROM (${keys}) page
         JOIN bookings b ON b.account_id = $1 AND b.id = page.id
        ORDER BY b.start_date, b.id`,
      params.values,
    );
    return rows.map(toEntity);
  }
}
