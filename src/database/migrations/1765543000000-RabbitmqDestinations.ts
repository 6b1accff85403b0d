import { SqlMigration } from '../migration-sql';

/**
 * RabbitMQ destinations (issue 43, an extension; docs/webhooks.md "Message broker destinations"):
 * - `webhook_subscriptions.rabbitmq`: the exchange and optional routing key of a subscription whose url
 *   is amqp(s) (null for an HTTP receiver);
 * - `webhook_subscriptions.broker_password`: the broker url's password, sealed (the url is stored without it);
 * - one subscription per url becomes one per url, exchange and routing key together (the same index name,
 *   which the API's duplicate check reads): several subscriptions may publish to one broker.
 */
export class RabbitmqDestinations1765543000000 extends SqlMigration {
  name = 'RabbitmqDestinations1765543000000';

  protected readonly upSql = [
    `ALTER TABLE webhook_subscriptions ADD COLUMN rabbitmq jsonb, ADD COLUMN broker_password text`,
    `DROP INDEX webhook_subscriptions_account_id_url_key`,
    `CREATE UNIQUE INDEX webhook_subscriptions_account_id_url_key
       ON webhook_subscriptions (account_id, url, (coalesce(rabbitmq, 'null'::jsonb))) WHERE kind = 'platform'`,
  ];

  protected readonly downSql = [
    `DELETE FROM webhook_subscriptions WHERE rabbitmq IS NOT NULL`,
    `DROP INDEX webhook_subscriptions_account_id_url_key`,
    `CREATE UNIQUE INDEX webhook_subscriptions_account_id_url_key ON webhook_subscriptions (account_id, url) WHERE kind = 'platform'`,
    `ALTER TABLE webhook_subscriptions DROP COLUMN broker_password, DROP COLUMN rabbitmq`,
  ];
}
