import type { TenantTable } from '../../platform/database/tenant-tables';

export const CALENDAR_FEEDS_TENANT_TABLES: readonly TenantTable[] = [
  { table: 'calendar_feeds' },
  { table: 'calendar_feed_entries', key: ['feed_id', 'uid'] },
];
