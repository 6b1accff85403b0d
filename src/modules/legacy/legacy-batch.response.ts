import type { FieldIssue } from '../../platform/errors/domain-error';
import { LegacyBatchRow, LegacyRecordRow, LegacyRecordStatus } from './legacy-batches.repository';
import { arrayOf, dateTime, enumOf, everyMember, id, int, optional, orNull, shapeOf, str } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { LEGACY_ACTIONS, LEGACY_ENTITIES, LegacyAction, LegacyEntity, LegacyRecordFailure } from './legacy.rules';
import { LEGACY_IDS } from './legacy.ids';

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

const FIELD_ISSUE = shapeOf<FieldIssue>('One failing field.', { pointer: str, detail: str });
const ACCEPTED = { type: 'integer', minimum: 1, maximum: 20 };

export const LEGACY_BATCH_ACCEPTED_SHAPE = readShape<LegacyBatchAcceptedResponse>(
  'LegacyBatchAccepted',
  'A stored legacy batch; its records are processed after this answer.',
  { batchId: id(LEGACY_IDS.legacyBatch), accepted: ACCEPTED },
);

export const LEGACY_BATCH_SHAPE = readShape<LegacyBatchResponse>(
  'LegacyBatch',
  "A legacy batch and each record's outcome, in the batch's order.",
  {
    batchId: id(LEGACY_IDS.legacyBatch),
    status: enumOf(everyMember<LegacyBatchResponse['status']>({ pending: true, processing: true, completed: true })),
    accepted: ACCEPTED,
    processed: int,
    createdAt: dateTime,
    completedAt: orNull(dateTime),
    records: arrayOf(
      shapeOf<LegacyRecordResponse>(
        'One record: pending, succeeded (entityId names the resource) or failed (code and errors as its legacy.validationError carried them).',
        {
          clientRequestId: str,
          entity: enumOf(LEGACY_ENTITIES),
          action: enumOf(LEGACY_ACTIONS),
          status: enumOf(everyMember<LegacyRecordStatus>({ pending: true, succeeded: true, failed: true })),
          entityId: optional(str),
          code: optional(str),
          errors: optional(arrayOf(FIELD_ISSUE)),
          processedAt: orNull(dateTime),
        },
      ),
    ),
  },
);

export const LEGACY_VALIDATION_ERROR_SHAPE = readShape<LegacyRecordFailure>(
  'LegacyValidationError',
  'A legacy record that failed: the errors the Platform problem would have named (pointers into its data or changes).',
  {
    clientRequestId: str,
    entity: enumOf(LEGACY_ENTITIES),
    action: enumOf(LEGACY_ACTIONS),
    code: {
      type: 'string',
      description: 'the Platform problem code (validationFailed, objectStrict, notFound, conflict, …; legacyApiRetired at the sunset)',
    },
    errors: arrayOf(FIELD_ISSUE),
  },
);
