import { SqlMigration } from '../migration-sql';

/**
 * A delivery attempt is claimed in the database before its POST (in_flight_since/until), so a job run
 * again by the queue never sends the same attempt twice, and an attempt whose worker died is found
 * once its claim has run out and recorded as failed before the next one is sent.
 */
export class DeliveryAttemptClaims1763800200000 extends SqlMigration {
  name = 'DeliveryAttemptClaims1763800200000';

  protected upSql = [
    `ALTER TABLE webhook_deliveries ADD COLUMN in_flight_since timestamptz, ADD COLUMN in_flight_until timestamptz`,
    // The sweep: claims that ran out (only attempts in flight are in this index).
    `CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (in_flight_until) WHERE in_flight_until IS NOT NULL`,
  ];

  protected downSql = [
    `DROP INDEX webhook_deliveries_in_flight_idx`,
    `ALTER TABLE webhook_deliveries DROP COLUMN in_flight_since, DROP COLUMN in_flight_until`,
  ];
}
