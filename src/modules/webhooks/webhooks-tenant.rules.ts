import type { TenantTable } from '../../platform/database/tenant-tables';

export const WEBHOOKS_TENANT_TABLES: readonly TenantTable[] = [
  { table: 'webhook_subscriptions' },
  { table: 'webhook_deliveries' },
  { table: 'webhook_delivery_keys', key: ['account_id', 'event_id', 'subscription_id'] },
  { table: 'webhook_replays' },
];
