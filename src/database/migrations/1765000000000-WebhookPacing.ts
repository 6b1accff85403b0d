import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pacing per endpoint (issue 23, an extension of the spec): `rate_limit_per_second` caps the attempts
 * started per second to a subscription across all workers (a Redis token bucket); NULL is unpaced.
 */
export class WebhookPacing1765000000000 implements MigrationInterface {
  name = 'WebhookPacing1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions ADD COLUMN rate_limit_per_second integer
         CONSTRAINT webhook_subscriptions_rate_limit_check CHECK (rate_limit_per_second BETWEEN 1 AND 1000)`,
    );
    await q.query(`ALTER TABLE webhook_subscriptions ADD COLUMN batch_lease_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_subscriptions DROP COLUMN rate_limit_per_second, DROP COLUMN batch_lease_until`);
  }
}
