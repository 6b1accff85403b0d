import type { TenantTable } from '../../platform/database/tenant-tables';

export const REMINDERS_TENANT_TABLES: readonly TenantTable[] = [{ table: 'reminders' }];
