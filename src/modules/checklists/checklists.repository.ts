import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { inIdOrder, returnedRows } from '../../platform/database/query-result';
import { ChecklistEntity } from './checklist.entity';
import { ACCOUNT_OWNED_COLUMNS, columns, SelectedRow, TIMESTAMP_COLUMNS } from '../../platform/database/columns';

const CHECKLIST_COLUMNS = columns<ChecklistEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    ...TIMESTAMP_COLUMNS,
    propertyId: 'property_id',
    title: 'title',
    description: 'description',
    taskGroups: 'task_groups',
    disabledAt: 'disabled_at',
  },
  ChecklistEntity,
);
const { all: COLUMNS, toEntity } = CHECKLIST_COLUMNS;

/** Row locks a use case takes: FOR UPDATE before a change, FOR SHARE while copying into a job. */
export type ChecklistLock = 'update' | 'share';

/** Checklist queries; every one is scoped by account (another account's checklist simply does not match). */
@Injectable()
export class ChecklistsRepository {
  async insert(
    manager: EntityManager,
    values: Pick<ChecklistEntity, 'id' | 'accountId' | 'propertyId' | 'title' | 'description' | 'taskGroups'>,
  ): Promise<ChecklistEntity> {
    const rows: SelectedRow[] = await manager.query(
      `INSERT INTO checklists (id, account_id, property_id, title, description, task_groups)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLUMNS}`,
      [values.id, values.accountId, values.propertyId, values.title, values.description, JSON.stringify(values.taskGroups)],
    );
    return toEntity(rows[0]);
  }

  async findOne(manager: EntityManager, accountId: string, id: string, lock: ChecklistLock): Promise<ChecklistEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM checklists WHERE account_id = $1 AND id = $2 FOR ${lock === 'update' ? 'UPDATE' : 'SHARE'}`,
      [accountId, id],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  async findMany(manager: EntityManager, accountId: string, ids: string[], lock: ChecklistLock): Promise<ChecklistEntity[]> {
    if (ids.length === 0) return [];
    // Sorted so concurrent callers lock rows in the same order (no deadlock between two jobs).
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM checklists WHERE account_id = $1 AND id = ANY($2::text[])
        ORDER BY id FOR ${lock === 'update' ? 'UPDATE' : 'SHARE'}`,
      [accountId, ids],
    );
    return rows.map(toEntity);
  }

  async update(
    manager: EntityManager,
    accountId: string,
    id: string,
    values: Pick<ChecklistEntity, 'title' | 'description' | 'taskGroups'>,
  ): Promise<ChecklistEntity> {
    const result: unknown = await manager.query(
      `UPDATE checklists SET title = $3, description = $4, task_groups = $5::jsonb, updated_at = now()
        WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [accountId, id, values.title, values.description, JSON.stringify(values.taskGroups)],
    );
    return toEntity(returnedRows<SelectedRow>(result)[0]);
  }

  async disable(manager: EntityManager, accountId: string, id: string): Promise<ChecklistEntity> {
    const result: unknown = await manager.query(
      `UPDATE checklists SET disabled_at = now(), updated_at = now()
        WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [accountId, id],
    );
    return toEntity(returnedRows<SelectedRow>(result)[0]);
  }

  /** Every checklist of the property, disabled ones included, oldest first. */
  async listByProperty(manager: EntityManager, accountId: string, propertyId: string): Promise<ChecklistEntity[]> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM checklists WHERE account_id = $1 AND property_id = $2 ORDER BY id`,
      [accountId, propertyId],
    );
    return rows.map(toEntity);
  }

  /** Deletes the property's checklists and returns them oldest first (for their checklist.delete events). */
  async deleteByProperty(manager: EntityManager, accountId: string, propertyId: string): Promise<ChecklistEntity[]> {
    const result: unknown = await manager.query(`DELETE FROM checklists WHERE account_id = $1 AND property_id = $2 RETURNING ${COLUMNS}`, [
      accountId,
      propertyId,
    ]);
    return inIdOrder(returnedRows<SelectedRow>(result).map(toEntity));
  }
}
