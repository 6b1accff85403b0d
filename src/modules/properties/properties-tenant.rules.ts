import type { TenantTable } from '../../platform/database/tenant-tables';

export const PROPERTIES_TENANT_TABLES: readonly TenantTable[] = [
  { table: 'properties' },
  { table: 'property_pictures', blobKey: 'storage_key' },
];
