import type { FieldIssue } from '../../platform/errors/domain-error';
import { LegacyBatchRow, LegacyRecordRow, LegacyRecordStatus } from './legacy-batches.repository';
import { LegacyAction, LegacyEntity } from './legacy.rules';

/** POST /legacy/batch: the batch is stored; its records are processed after this answer. */
export interface LegacyBatchAcceptedResponse {
  batchId: string;
  accepted: number;
}

export interface LegacyRecordResponse {
  clientRequestId: string;
  entity: LegacyEntity;
  action: LegacyAction;
  status: LegacyRecordStatus;
  /** On success: the id of the resource created or changed. */
  entityId?: string;
  /** On failure: the Platform problem's code and its errors, as the record's legacy.validationError carried them. */
  code?: string;
  errors?: FieldIssue[];
  processedAt: string | null;
}

/** GET /legacy/batch/{batchId}: for a client that lost a webhook. */
export interface LegacyBatchResponse {
  batchId: string;
  /** pending: nothing processed yet; processing: some records done; completed: every record succeeded or failed. */
  status: 'pending' | 'processing' | 'completed';
  accepted: number;
  processed: number;
  createdAt: string;
  completedAt: string | null;
  records: LegacyRecordResponse[];
}

export function toLegacyBatchResponse(batch: LegacyBatchRow, records: LegacyRecordRow[]): LegacyBatchResponse {
  const processed = records.filter((record) => record.status !== 'pending').length;
  return {
    batchId: batch.id,
    status: batch.completedAt ? 'completed' : processed > 0 ? 'processing' : 'pending',
    accepted: batch.recordCount,
    processed,
    createdAt: batch.createdAt.toISOString(),
    completedAt: batch.completedAt?.toISOString() ?? null,
    records: records.map(toLegacyRecordResponse),
  };
}

function toLegacyRecordResponse(record: LegacyRecordRow): LegacyRecordResponse {
  const shape: LegacyRecordResponse = {
    clientRequestId: record.clientRequestId,
    entity: record.entity,
    action: record.action,
    status: record.status,
    processedAt: record.processedAt?.toISOString() ?? null,
  };
  if (record.status === 'succeeded' && record.resultId) shape.entityId = record.resultId;
  if (record.status === 'failed') {
    shape.code = record.errorCode ?? 'validationFailed';
    shape.errors = record.errors ?? [];
  }
  return shape;
}
