import { SqlMigration } from '../migration-sql';

/**
 * Operational webhook events (issue 13): `dark_since` is set when the delivery engine disables a
 * subscription (auto-disable, 410 Gone) and cleared by its first delivered delivery after that, which
 * publishes webhook.recovered once (the clearing is the guard).
 */
export class SubscriptionDarkSince1764300200000 extends SqlMigration {
  name = 'SubscriptionDarkSince1764300200000';

  protected upSql = [`ALTER TABLE webhook_subscriptions ADD COLUMN dark_since timestamptz`];
  protected downSql = [`ALTER TABLE webhook_subscriptions DROP COLUMN dark_since`];
}
