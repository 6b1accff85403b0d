import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operational webhook events (issue 13): `dark_since` is set when the delivery engine disables a
 * subscription (auto-disable, 410 Gone) and cleared by its first delivered delivery after that, which
 * publishes webhook.recovered once (the clearing is the guard).
 */
export class SubscriptionDarkSince1764300200000 implements MigrationInterface {
  name = 'SubscriptionDarkSince1764300200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_subscriptions ADD COLUMN dark_since timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_subscriptions DROP COLUMN dark_since`);
  }
}
