import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';
import type { FieldIssue } from '../../platform/errors/domain-error';
import { LegacyAction, LegacyEntity } from './legacy.rules';

export type LegacyRecordStatus = 'pending' | 'succeeded' | 'failed';

export interface LegacyBatchRow {
  id: string;
  accountId: string;
  requestId: string;
  recordCount: number;
  runs: number;
  createdAt: Date;
  completedAt: Date | null;
}

export interface LegacyRecordRow {
  batchId: string;
  position: number;
  accountId: string;
  clientRequestId: string;
  entity: LegacyEntity;
  action: LegacyAction;
  entityId: string | null;
  body: Record<string, unknown> | null;
  status: LegacyRecordStatus;
  resultId: string | null;
  errorCode: string | null;
  errors: FieldIssue[] | null;
  processedAt: Date | null;
}

const BATCH = columns<LegacyBatchRow>({
  id: 'id',
  accountId: 'account_id',
  requestId: 'request_id',
  recordCount: 'record_count',
  runs: 'runs',
  createdAt: 'created_at',
  completedAt: 'completed_at',
});
const RECORD = columns<LegacyRecordRow>({
  batchId: 'batch_id',
  position: 'position',
  accountId: 'account_id',
  clientRequestId: 'client_request_id',
  entity: 'entity',
  action: 'action',
  entityId: 'entity_id',
  body: 'body',
  status: 'status',
  resultId: 'result_id',
  errorCode: 'error_code',
  errors: 'errors',
  processedAt: 'processed_at',
});

/**
 * The durable queue of legacy batches: the batch and its records are written in the transaction that
 * acknowledges them; each record's outcome is written, guarded by its still being pending, in the
 * transaction that applies it, so no record is ever applied twice whoever processes the batch.
 */
@Injectable()
export class LegacyBatchesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    batch: { id: string; accountId: string; requestId: string },
    records: Array<{ clientRequestId: string; entity: string; action: string; entityId?: string; body?: object }>,
  ): Promise<void> {
    await manager.query(`INSERT INTO legacy_batches (id, account_id, request_id, record_count) VALUES ($1, $2, $3, $4)`, [
      batch.id,
      batch.accountId,
      batch.requestId,
      records.length,
    ]);
    // body is json: the record's data or changes kept byte for byte, key order included.
    await manager.query(
      `INSERT INTO legacy_batch_records (batch_id, position, account_id, client_request_id, entity, action, entity_id, body)
       SELECT $1, n - 1, $2, r.client_request_id, r.entity, r.action, r.entity_id, r.body::json
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY
              AS r(client_request_id, entity, action, entity_id, body, n)`,
      [
        batch.id,
        batch.accountId,
        records.map((r) => r.clientRequestId),
        records.map((r) => r.entity),
        records.map((r) => r.action),
        records.map((r) => r.entityId ?? null),
        records.map((r) => (r.body === undefined ? null : JSON.stringify(r.body))),
      ],
    );
  }

  async find(accountId: string, id: string): Promise<{ batch: LegacyBatchRow; records: LegacyRecordRow[] } | undefined> {
    const [row]: SelectedRow[] = await this.dataSource.query(
      `SELECT ${BATCH.selectList()} FROM legacy_batches WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
    if (!row) return undefined;
    return { batch: BATCH.toEntity(row), records: await this.records(accountId, id) };
  }

  async records(accountId: string, batchId: string, pendingOnly = false): Promise<LegacyRecordRow[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${RECORD.selectList()} FROM legacy_batch_records
        WHERE batch_id = $1 AND account_id = $2 ${pendingOnly ? `AND status = 'pending'` : ''} ORDER BY position`,
      [batchId, accountId],
    );
    return rows.map((row) => RECORD.toEntity(row));
  }

  /**
   * Takes the batch for processing until `leaseMs` from now, if it is not completed and no live lease
   * holds it (another worker processing it); counts the run.
   */
  async lease(id: string, leaseMs: number): Promise<LegacyBatchRow | undefined> {
    const [rows]: [SelectedRow[], number] = await this.dataSource.query(
      `UPDATE legacy_batches SET leased_until = now() + make_interval(secs => $2::float8 / 1000), runs = runs + 1
        WHERE id = $1 AND completed_at IS NULL AND (leased_until IS NULL OR leased_until < now())
        RETURNING ${BATCH.selectList()}`,
      [id, leaseMs],
    );
    return rows[0] ? BATCH.toEntity(rows[0]) : undefined;
  }

  async renewLease(id: string, leaseMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE legacy_batches SET leased_until = now() + make_interval(secs => $2::float8 / 1000) WHERE id = $1 AND completed_at IS NULL`,
      [id, leaseMs],
    );
  }

  /** Ends a run: completed when no record is pending, else the lease holds `retryInMs` more (0: free at once). */
  async endRun(id: string, retryInMs: number): Promise<boolean> {
    const [rows] = await this.dataSource.query(
      `UPDATE legacy_batches b
          SET completed_at = CASE WHEN p.pending THEN NULL ELSE now() END,
              leased_until = CASE WHEN p.pending THEN now() + make_interval(secs => $2::float8 / 1000) ELSE NULL END
         FROM (SELECT EXISTS (SELECT 1 FROM legacy_batch_records WHERE batch_id = $1 AND status = 'pending') AS pending) p
        WHERE b.id = $1
        RETURNING b.completed_at IS NOT NULL AS completed`,
      [id, retryInMs],
    );
    return rows[0]?.completed === true;
  }

  /** The record's success, in the transaction that applied it; false when it was no longer pending (then that transaction must roll back). */
  async markSucceeded(manager: EntityManager, record: LegacyRecordRow, resultId: string | null): Promise<boolean> {
    const [, affected] = await manager.query(
      `UPDATE legacy_batch_records SET status = 'succeeded', result_id = $3, processed_at = now()
        WHERE batch_id = $1 AND position = $2 AND status = 'pending'`,
      [record.batchId, record.position, resultId],
    );
    return affected > 0;
  }

  /** The record's failure, in the transaction that publishes its legacy.validationError; false when no longer pending. */
  async markFailed(manager: EntityManager, record: LegacyRecordRow, code: string, errors: FieldIssue[]): Promise<boolean> {
    const [, affected] = await manager.query(
      `UPDATE legacy_batch_records SET status = 'failed', error_code = $3, errors = $4::json, processed_at = now()
        WHERE batch_id = $1 AND position = $2 AND status = 'pending'`,
      [record.batchId, record.position, code, JSON.stringify(errors)],
    );
    return affected > 0;
  }

  /** Retention: deletes one batch of batches (their records with them) completed before `cutoff`; returns the count. */
  async deleteCompletedBefore(cutoff: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM legacy_batches WHERE id IN (SELECT id FROM legacy_batches WHERE completed_at < $1 LIMIT $2)`,
      [cutoff, limit],
    );
    return deleted;
  }

  /** Batches to pick up: not completed, no live lease, acknowledged at least `graceMs` ago (the queue job goes first). */
  async due(graceMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM legacy_batches
        WHERE completed_at IS NULL AND (leased_until IS NULL OR leased_until < now())
          AND created_at < now() - make_interval(secs => $1::float8 / 1000)
        ORDER BY created_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => row.id);
  }
}
