import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Back-pressure and gone receivers (issue 13): `backpressure_until` is the end of the window a
 * Retry-After answer opened (a permanent failure answered so counts towards auto-disable once per
 * window); `disabled_by` names the attempt (`<delivery id>.<attempt>`) that disabled the subscription,
 * so exactly one record reports the disabling (and publishes webhook.disabled).
 */
export class SubscriptionBackpressure1764300100000 implements MigrationInterface {
  name = 'SubscriptionBackpressure1764300100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_subscriptions ADD COLUMN backpressure_until timestamptz, ADD COLUMN disabled_by text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_subscriptions DROP COLUMN backpressure_until, DROP COLUMN disabled_by`);
  }
}
