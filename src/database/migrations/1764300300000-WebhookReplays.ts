import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook replay and single-delivery retry (issue 13). A replayed or retried delivery is the same row
 * (the same webhook-id) opened again for a new round of attempts: `retry_base` is the attempt count when
 * its current round began (its retry budget counts from there; webhook-retry-count goes on), and
 * `replay_id` the replay that opened it last. A replay's progress lives in `webhook_replays`: at most
 * one running per subscription (the partial unique index), its cursor a position in the event feed,
 * advanced in the transaction that creates the deliveries of a batch.
 */
export class WebhookReplays1764300300000 implements MigrationInterface {
  name = 'WebhookReplays1764300300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN retry_base integer NOT NULL DEFAULT 0, ADD COLUMN replay_id text`);
    await q.query(`CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE webhook_replays (
        id text COLLATE "C" PRIMARY KEY,
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
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX webhook_replays_running_uq ON webhook_replays (subscription_id) WHERE status = 'running'`);
    await q.query(`CREATE INDEX webhook_replays_account_idx ON webhook_replays (account_id, subscription_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_replays`);
    await q.query(`DROP INDEX webhook_deliveries_replay_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN retry_base, DROP COLUMN replay_id`);
  }
}
