import { SqlMigration } from '../migration-sql';

/**
 * The delivery log keeps each attempt's response snippet for 7 days (issue 13): `snippets_expire_at` is
 * when the oldest snippet a delivery still holds turns 7 days old, so the retention task finds the
 * deliveries to trim through a small partial index instead of reading the attempts of every row.
 * Attempts recorded before this migration keep their snippets until the 90-day retention.
 */
export class DeliveryLogSnippets1764300000000 extends SqlMigration {
  name = 'DeliveryLogSnippets1764300000000';

  protected upSql = [
    `ALTER TABLE webhook_deliveries ADD COLUMN snippets_expire_at timestamptz`,
    `CREATE INDEX webhook_deliveries_snippets_idx ON webhook_deliveries (snippets_expire_at) WHERE snippets_expire_at IS NOT NULL`,
  ];

  protected downSql = [`DROP INDEX webhook_deliveries_snippets_idx`, `ALTER TABLE webhook_deliveries DROP COLUMN snippets_expire_at`];
}
