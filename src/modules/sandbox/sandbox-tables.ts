import type { TenantTable } from '../../platform/database/tenant-tables';
import { IDEMPOTENCY_TENANT_TABLES } from '../../platform/idempotency/idempotency-tenant.rules';
import { BOOKINGS_TENANT_TABLES } from '../bookings/bookings-tenant.rules';
import { CALENDAR_FEEDS_TENANT_TABLES } from '../calendar-feeds/calendar-feeds-tenant.rules';
import { CHECKLISTS_TENANT_TABLES } from '../checklists/checklists-tenant.rules';
import { EVENTS_TENANT_TABLES } from '../events/events-tenant.rules';
import { JOB_REQUESTS_TENANT_TABLES } from '../job-requests/job-requests-tenant.rules';
import { LEGACY_TENANT_TABLES } from '../legacy/legacy-tenant.rules';
import { PROPERTIES_TENANT_TABLES } from '../properties/properties-tenant.rules';
import { REMINDERS_TENANT_TABLES } from '../reminders/reminders-tenant.rules';
import { WEBHOOKS_TENANT_TABLES } from '../webhooks/webhooks-tenant.rules';

/**
 * What a sandbox's data is: each module's own declaration of its tables. A module with a new table declares it
 * in its `*-tenant.rules.ts`; the sandbox e2e test fails while a table with `account_id` is declared nowhere.
 * Not here: api_keys (a sandbox holds none; test keys belong to the live account and are kept) and the
 * console's tables (sessions, forms and notes are the live account's).
 */
export const TENANT_TABLES: readonly TenantTable[] = [
  ...IDEMPOTENCY_TENANT_TABLES,
  ...EVENTS_TENANT_TABLES,
  ...PROPERTIES_TENANT_TABLES,
  ...CHECKLISTS_TENANT_TABLES,
  ...BOOKINGS_TENANT_TABLES,
  ...REMINDERS_TENANT_TABLES,
  ...JOB_REQUESTS_TENANT_TABLES,
  ...CALENDAR_FEEDS_TENANT_TABLES,
  ...WEBHOOKS_TENANT_TABLES,
  ...LEGACY_TENANT_TABLES,
];
