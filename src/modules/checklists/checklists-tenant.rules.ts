import type { TenantTable } from '../../platform/database/tenant-tables';

export const CHECKLISTS_TENANT_TABLES: readonly TenantTable[] = [{ table: 'checklists' }];
