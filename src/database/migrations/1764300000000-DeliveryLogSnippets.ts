import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery log keeps each attempt's response snippet for 7 days (issue 13): `snippets_expire_at` is
 * when the oldest snippet a delivery still holds turns 7 days old, so the retention task finds the
 * deliveries to trim through a small partial index instead of reading the attempts of every row.
 * Attempts recorded before this migration keep their snippets until the 90-day retention.
 */
export class DeliveryLogSnippets1764300000000 implements MigrationInterface {
  name = 'DeliveryLogSnippets1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN snippets_expire_at timestamptz`);
    await q.query(
      `CREATE INDEX webhook_deliveries_snippets_idx ON webhook_deliveries (snippets_expire_at) WHERE snippets_expire_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_snippets_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN snippets_expire_at`);
  }
}
