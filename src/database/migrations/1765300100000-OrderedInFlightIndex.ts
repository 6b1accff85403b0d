import { SqlMigration } from '../migration-sql';

/**
 * Ordered endpoints (issue 31): whether any delivery of a subscription's order is in flight is asked at
 * every claim in order; this partial index holds only those (at most one per subscription), so the answer
 * is one probe, not a walk over the backlog waiting behind the head.
 */
export class OrderedInFlightIndex1765300100000 extends SqlMigration {
  name = 'OrderedInFlightIndex1765300100000';

  protected upSql = [
    `CREATE INDEX webhook_deliveries_order_in_flight_idx ON webhook_deliveries (subscription_id)
       WHERE order_tx IS NOT NULL AND in_flight_until IS NOT NULL`,
  ];
  protected downSql = [`DROP INDEX webhook_deliveries_order_in_flight_idx`];
}
