import type { TenantTable } from '../../platform/database/tenant-tables';

export const BOOKINGS_TENANT_TABLES: readonly TenantTable[] = [{ table: 'bookings' }];
