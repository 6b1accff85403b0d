import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { inIdOrder, returnedRows, SqlParams } from '../../platform/database/query-result';
import { DateWindow } from '../../platform/pagination/date-window';
import { ReminderEntity } from './reminder.entity';
import { SqlRepository } from '../../platform/database/sql-repository';
import { ACCOUNT_OWNED_COLUMNS, columns, NewRow, SelectedRow, TIMESTAMP_COLUMNS } from '../../platform/database/columns';

const REMINDER_COLUMNS = columns<ReminderEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    ...TIMESTAMP_COLUMNS,
    propertyId: 'property_id',
    title: 'title',
    date: 'date',
    sourceBookingId: 'source_booking_id',
    sourceId: 'source_id',
    actionable: 'actionable',
    checklistIds: 'checklist_ids',
    jobRequestSettings: 'job_request_settings',
    automatic: 'automatic',
    firedAt: 'fired_at',
  },
  ReminderEntity,
);
const { all: COLUMNS, toEntity } = REMINDER_COLUMNS;

export type NewReminder = NewRow<ReminderEntity, 'firedAt'>;

export interface ReminderListFilter {
  window: DateWindow;
  propertyId?: string;
  /** The last row of the previous page: its date (ISO, to the millisecond) and id. */
  after?: { date: string; id: string };
}

/** Reminder queries. Every one is scoped by account, except the firing sweep's, which spans them. */
@Injectable()
export class RemindersRepository extends SqlRepository {
  async insert(manager: EntityManager, values: NewReminder): Promise<ReminderEntity> {
    const rows: SelectedRow[] = await manager.query(
      `INSERT INTO reminders (id, account_id, property_id, title, date, source_booking_id, source_id, actionable,
                              checklist_ids, job_request_settings, automatic)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11)
       RETURNING ${COLUMNS}`,
      [
        values.id,
        values.accountId,
        values.propertyId,
        values.title,
        values.date,
        values.sourceBookingId,
        values.sourceId,
        values.actionable,
        values.checklistIds,
        values.jobRequestSettings === null ? null : JSON.stringify(values.jobRequestSettings),
        values.automatic,
      ],
    );
    return toEntity(rows[0]);
  }

  async findOne(manager: EntityManager, accountId: string, id: string, lock?: 'update'): Promise<ReminderEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM reminders WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [accountId, id],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /** The automatic reminder of the booking with this sourceBookingId (at most one), locked FOR UPDATE. */
  async lockAutomatic(manager: EntityManager, accountId: string, sourceBookingId: string): Promise<ReminderEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM reminders WHERE account_id = $1 AND source_booking_id = $2 AND automatic FOR UPDATE`,
      [accountId, sourceBookingId],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /** Moves a reminder to a new date; it is unfired again (it fires at its new date). */
  async reschedule(manager: EntityManager, accountId: string, id: string, date: Date): Promise<ReminderEntity> {
    const result: unknown = await manager.query(
      `UPDATE reminders SET date = $3, fired_at = NULL, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [accountId, id, date],
    );
    return toEntity(returnedRows<SelectedRow>(result)[0]);
  }

  /**
   * Fires a due reminder: sets fired_at if it is still unset and the date has come, in one statement, so
   * of every path trying at once (its job, a retry, the sweep of any worker) exactly one gets the row.
   */
  async claimDue(manager: EntityManager, accountId: string, id: string): Promise<ReminderEntity | undefined> {
    const result: unknown = await manager.query(
      `UPDATE reminders SET fired_at = now()
        WHERE account_id = $1 AND id = $2 AND fired_at IS NULL AND date <= now()
        RETURNING ${COLUMNS}`,
      [accountId, id],
    );
    const [row] = returnedRows<SelectedRow>(result);
    return row ? toEntity(row) : undefined;
  }

  /** Why a reminder was not claimed: gone, already fired, or not due yet (by the database's clock). */
  async dueState(manager: EntityManager, accountId: string, id: string): Promise<{ fired: boolean; dueInMs: number } | undefined> {
    const [row]: Array<{ fired: boolean; due_in_ms: number }> = await manager.query(
      `SELECT fired_at IS NOT NULL AS fired, EXTRACT(EPOCH FROM date - now())::float8 * 1000 AS due_in_ms
         FROM reminders WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
    return row ? { fired: row.fired, dueInMs: row.due_in_ms } : undefined;
  }

  /**
   * The sweep: unfired reminders of every account (or of some) dated up to `horizonMs` from now, by
   * (date, id), after `after` (the last row of the previous batch), with how overdue each is
   * (negative: still to come). Index reminders_unfired_date_idx.
   */
  async unfiredUntil(
    horizonMs: number,
    limit: number,
    accountIds?: string[],
    after?: { date: Date; id: string },
  ): Promise<Array<{ accountId: string; id: string; date: Date; overdueMs: number }>> {
    const rows: Array<{ account_id: string; id: string; date: Date; overdue_ms: number }> = await this.dataSource.query(
      `SELECT account_id, id, date, EXTRACT(EPOCH FROM now() - date)::float8 * 1000 AS overdue_ms FROM reminders
        WHERE fired_at IS NULL AND date <= now() + make_interval(secs => $1::float8 / 1000)
          AND ($3::text[] IS NULL OR account_id = ANY($3::text[]))
          AND ($4::timestamptz IS NULL OR (date, id) > ($4::timestamptz, $5::text))
        ORDER BY date, id LIMIT $2`,
      [horizonMs, limit, accountIds ?? null, after?.date ?? null, after?.id ?? null],
    );
    return rows.map((row) => ({ accountId: row.account_id, id: row.id, date: row.date, overdueMs: row.overdue_ms }));
  }

  async delete(manager: EntityManager, accountId: string, id: string): Promise<void> {
    await manager.query(`DELETE FROM reminders WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /** Deletes the property's reminders and returns them in id order (for their reminder.delete events). */
  async deleteByProperty(manager: EntityManager, accountId: string, propertyId: string): Promise<ReminderEntity[]> {
    const result: unknown = await manager.query(`DELETE FROM reminders WHERE account_id = $1 AND property_id = $2 RETURNING ${COLUMNS}`, [
      accountId,
      propertyId,
    ]);
    return inIdOrder(returnedRows<SelectedRow>(result).map(toEntity));
  }

  /**
   * A keyset page of the reminders dated in [from, to), by (date, id), after the cursor; `take` is
   * limit + 1. One range scan of (account_id[, property_id], date, id) in list order, stopped by LIMIT.
   */
  async listPage(accountId: string, filter: ReminderListFilter, take: number): Promise<ReminderEntity[]> {
    const params = new SqlParams(accountId, filter.window.from, filter.window.to, take);
    let conditions = '';
    if (filter.propertyId !== undefined) conditions += ` AND property_id = ${params.add(filter.propertyId)}`;
    if (filter.after) conditions += ` AND (date, id) > (${params.add(filter.after.date)}::timestamptz, ${params.add(filter.after.id)})`;
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM reminders
        WHERE account_id = $1 AND date >= $2 AND date < $3${conditions}
        ORDER BY date, id LIMIT $4`,
      params.values,
    );
    return rows.map(toEntity);
  }
}
