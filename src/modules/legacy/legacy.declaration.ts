import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';
import { REMINDER_EXAMPLES } from '../reminders/reminders.declaration';
import { LEGACY_BATCH_ACCEPTED_SHAPE, LEGACY_BATCH_SHAPE, LEGACY_VALIDATION_ERROR_SHAPE } from './legacy-batch.response';
import { LEGACY_IDS } from './legacy.ids';

const exampleIds = { legacyBatchId: 'lbat_01JDZKA1B2C3D4E5F6G7H8J9K0' };

/** The example requests' values: POST /legacy/batch's two records, each the legacy form of a Platform call. */
export const LEGACY_EXAMPLES = {
  ...exampleIds,
  legacyWebhookUrl: 'https://hooks.example.com/property-ops-legacy',
  batch: {
    records: [
      {
        clientRequestId: 'rename-villa',
        entity: 'property',
        action: 'update',
        entityId: PROPERTY_EXAMPLES.propertyId,
        changes: { name: 'Villa Azur (sea view)' },
      },
      { clientRequestId: 'new-reminder', entity: 'reminder', action: 'create', data: REMINDER_EXAMPLES.reminderBody },
    ],
  },
};

const dateRequired = [{ pointer: '#/date', detail: 'date is required' }];

export const LEGACY = declareModule({
  ids: LEGACY_IDS,
  // A sandbox never holds legacy batches (the legacy API refuses test keys); declared so that no table is left out.
  tenantTables: [{ table: 'legacy_batches' }, { table: 'legacy_batch_records', key: ['batch_id', 'position'] }],
  exampleIds,
  shapes: [LEGACY_BATCH_ACCEPTED_SHAPE, LEGACY_BATCH_SHAPE, LEGACY_VALIDATION_ERROR_SHAPE],
  examples: {
    LegacyBatchAccepted: { batchId: exampleIds.legacyBatchId, accepted: 2 },
    LegacyBatch: {
      batchId: exampleIds.legacyBatchId,
      status: 'completed',
      accepted: 2,
      processed: 2,
      createdAt: at,
      completedAt: at,
      records: [
        {
          clientRequestId: 'rename-villa',
          entity: 'property',
          action: 'update',
          status: 'succeeded',
          entityId: PROPERTY_EXAMPLES.propertyId,
          processedAt: at,
        },
        {
          clientRequestId: 'new-reminder',
          entity: 'reminder',
          action: 'create',
          status: 'failed',
          code: 'validationFailed',
          errors: dateRequired,
          processedAt: at,
        },
      ],
    },
    LegacyValidationError: {
      clientRequestId: 'new-reminder',
      entity: 'reminder',
      action: 'create',
      code: 'validationFailed',
      errors: dateRequired,
    },
  },
  events: {
    'legacy.validationError': {
      payload: LEGACY_VALIDATION_ERROR_SHAPE,
      when: 'a legacy record failed (its body broke the Platform DTO, its entity was not found, a conflict…), or was still pending at the sunset (`code: legacyApiRetired`)',
      results:
        "`[{clientRequestId, entity, action, code, errors: [{pointer, detail}]}]`: `code` and `errors` as the Platform problem would have named them (pointers into the record's `data` or `changes`)",
    },
  },
  tags: {
    Legacy: 'The deprecated legacy batched API and its unsigned webhook: legacy keys only, shut down at the sunset (docs/legacy.md).',
  },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    legacy: typeof LEGACY;
  }
}
