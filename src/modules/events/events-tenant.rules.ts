import type { TenantTable } from '../../platform/database/tenant-tables';

export const EVENTS_TENANT_TABLES: readonly TenantTable[] = [{ table: 'events' }];
