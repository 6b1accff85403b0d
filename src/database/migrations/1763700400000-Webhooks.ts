import { accountTable, CREATED_AT, ID, SqlMigration, TIMESTAMPS } from '../migration-sql';

/** Webhook subscriptions and their delivery log (one row per event and subscription, attempts inline). */
export class Webhooks1763700400000 extends SqlMigration {
  name = 'Webhooks1763700400000';

  protected upSql = [
    accountTable(
      'webhook_subscriptions',
      `url text NOT NULL,
      event_filters text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      max_retries integer NOT NULL CHECK (max_retries BETWEEN 0 AND 10),
      signing_secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      disabled_reason text,
      consecutive_failures integer NOT NULL DEFAULT 0,
      ${TIMESTAMPS},
      UNIQUE (account_id, url)`,
    ),
    // Dispatch looks up an account's enabled subscriptions for every event.
    `CREATE INDEX webhook_subscriptions_dispatch_idx ON webhook_subscriptions (account_id, created_at) WHERE enabled`,
    `CREATE TABLE webhook_deliveries (
      ${ID},
      account_id text COLLATE "C" NOT NULL,
      subscription_id text COLLATE "C" NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
      event_id text COLLATE "C" REFERENCES events (id) ON DELETE CASCADE,
      event_name text NOT NULL,
      test boolean NOT NULL DEFAULT false,
      -- Synthetic (test) deliveries have no event row: their envelope lives here.
      test_payload jsonb,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed_permanent')),
      attempt_count integer NOT NULL DEFAULT 0,
      attempts jsonb NOT NULL DEFAULT '[]',
      first_attempt_at timestamptz,
      last_attempt_at timestamptz,
      next_retry_at timestamptz,
      ${CREATED_AT},
      CHECK (test OR event_id IS NOT NULL)
    )`,
    // One delivery per (event, subscription): a second dispatch of the same event is a no-op.
    `CREATE UNIQUE INDEX webhook_deliveries_event_subscription_uq ON webhook_deliveries (event_id, subscription_id) WHERE event_id IS NOT NULL`,
    // The delivery log: a subscription's deliveries newest first.
    `CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (account_id, subscription_id, id DESC)`,
    // The sweep: pending deliveries whose retry is due.
    `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`,
    `CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`,
  ];

  protected downSql = [`DROP TABLE webhook_deliveries`, `DROP TABLE webhook_subscriptions`];
}
