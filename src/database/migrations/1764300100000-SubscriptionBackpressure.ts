import { SqlMigration } from '../migration-sql';

/**
 * Back-pressure and gone receivers (issue 13): `backpressure_until` is the end of the window a
 * Retry-After answer opened (a permanent failure answered so counts towards auto-disable once per
 * window); `disabled_by` names the attempt (`<delivery id>.<attempt>`) that disabled the subscription,
 * so exactly one record reports the disabling (and publishes webhook.disabled).
 */
export class SubscriptionBackpressure1764300100000 extends SqlMigration {
  name = 'SubscriptionBackpressure1764300100000';

  protected upSql = [`ALTER TABLE webhook_subscriptions ADD COLUMN backpressure_until timestamptz, ADD COLUMN disabled_by text`];
  protected downSql = [`ALTER TABLE webhook_subscriptions DROP COLUMN backpressure_until, DROP COLUMN disabled_by`];
}
