import { SqlMigration } from '../migration-sql';

/**
 * Ordered webhook endpoints (issue 31, an extension): `ordered` on the subscription; `order_tx` on a
 * delivery in its subscription's order, the writing transaction of its event (events.tx_id, as bigint),
 * so (order_tx, event_id) is its place in the events feed; NULL for a delivery outside any order
 * (unordered subscriptions, test deliveries, manual retries, replays). The partial index finds a
 * subscription's head (its lowest pending delivery in order) and counts those waiting behind it.
 */
export class OrderedWebhooks1765300000000 extends SqlMigration {
  name = 'OrderedWebhooks1765300000000';

  protected upSql = [
    `ALTER TABLE webhook_subscriptions ADD COLUMN ordered boolean NOT NULL DEFAULT false`,
    `ALTER TABLE webhook_deliveries ADD COLUMN order_tx bigint`,
    `CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (subscription_id, order_tx, event_id)
       WHERE order_tx IS NOT NULL AND status = 'pending'`,
  ];
  protected downSql = [
    `DROP INDEX webhook_deliveries_order_idx`,
    `ALTER TABLE webhook_deliveries DROP COLUMN order_tx`,
    `ALTER TABLE webhook_subscriptions DROP COLUMN ordered`,
  ];
}
