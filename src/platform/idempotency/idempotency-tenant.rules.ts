import type { TenantTable } from '../database/tenant-tables';

export const IDEMPOTENCY_TENANT_TABLES: readonly TenantTable[] = [{ table: 'idempotency_keys', key: ['account_id', 'key'] }];
