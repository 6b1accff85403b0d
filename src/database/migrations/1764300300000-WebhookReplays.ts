import { ID, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Webhook replay and single-delivery retry (issue 13). A replayed or retried delivery is the same row
 * (the same webhook-id) opened again for a new round of attempts: `retry_base` is the attempt count when
 * its current round began (its retry budget counts from there; webhook-retry-count goes on), and
 * `replay_id` the replay that opened it last. A replay's progress lives in `webhook_replays`: at most
 * one running per subscription (the partial unique index), its cursor a position in the event feed,
 * advanced in the transaction that creates the deliveries of a batch.
 */
export class WebhookReplays1764300300000 extends SqlMigration {
  name = 'WebhookReplays1764300300000';

  protected upSql = [
    `ALTER TABLE webhook_deliveries ADD COLUMN retry_base integer NOT NULL DEFAULT 0, ADD COLUMN replay_id text`,
    `CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL`,
    `CREATE TABLE webhook_replays (
      ${ID},
      account_id text COLLATE "C" NOT NULL,
      subscription_id text COLLATE "C" NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('running', 'completed', 'stopped')),
      since timestamptz NOT NULL,
      until timestamptz NOT NULL,
      event_filters text[] NOT NULL,
      only_failed boolean NOT NULL,
      total integer NOT NULL,
      done integer NOT NULL DEFAULT 0,
      skipped integer NOT NULL DEFAULT 0,
      cursor_tx_id xid8,
      cursor_id text COLLATE "C",
      ${TIMESTAMPS},
      finished_at timestamptz
    )`,
    `CREATE UNIQUE INDEX webhook_replays_running_uq ON webhook_replays (subscription_id) WHERE status = 'running'`,
    `CREATE INDEX webhook_replays_account_idx ON webhook_replays (account_id, subscription_id, id)`,
  ];

  protected downSql = [
    `DROP TABLE webhook_replays`,
    `DROP INDEX webhook_deliveries_replay_idx`,
    `ALTER TABLE webhook_deliveries DROP COLUMN retry_base, DROP COLUMN replay_id`,
  ];
}
