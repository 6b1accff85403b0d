import type { TenantTable } from '../../platform/database/tenant-tables';

/** A sandbox never holds legacy batches (the legacy API refuses test keys); declared so that no table is left out. */
export const LEGACY_TENANT_TABLES: readonly TenantTable[] = [
  { table: 'legacy_batches' },
  { table: 'legacy_batch_records', key: ['batch_id', 'position'] },
];
