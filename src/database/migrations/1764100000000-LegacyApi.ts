import { accountTable, CREATED_AT, SqlMigration } from '../migration-sql';

/**
 * The legacy batched API (spec 9, docs/legacy.md): the durable queue of acknowledged batches and their
 * records (each record's outcome is written in the transaction that applies it), and the legacy
 * webhook as a subscription of kind `legacy`: one per account, subscribed to every event, unsigned
 * (no secret), hidden from /v1/webhooks. Platform subscriptions keep one per URL; a legacy webhook may
 * share its URL with one (the migration path promotes a Platform subscription to the legacy URL).
 */
export class LegacyApi1764100000000 extends SqlMigration {
  name = 'LegacyApi1764100000000';

  protected upSql = [
    `ALTER TABLE webhook_subscriptions ADD COLUMN kind text NOT NULL DEFAULT 'platform' CHECK (kind IN ('platform', 'legacy'))`,
    `ALTER TABLE webhook_subscriptions ALTER COLUMN signing_secret DROP NOT NULL`,
    `ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_secret_by_kind CHECK ((kind = 'legacy') = (signing_secret IS NULL))`,
    // Same name as the constraint it replaces: the subscriptions service recognises its violation by it.
    `ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_account_id_url_key`,
    `CREATE UNIQUE INDEX webhook_subscriptions_account_id_url_key ON webhook_subscriptions (account_id, url) WHERE kind = 'platform'`,
    `CREATE UNIQUE INDEX webhook_subscriptions_one_legacy_uq ON webhook_subscriptions (account_id) WHERE kind = 'legacy'`,

    accountTable(
      'legacy_batches',
      `-- The acknowledging request's x-request-id: the apiRequestId of every event the batch causes.
      request_id text NOT NULL,
      record_count integer NOT NULL CHECK (record_count BETWEEN 1 AND 20),
      -- Processing runs so far (a run that dies leaves its lease to run out; the sweep starts another).
      runs integer NOT NULL DEFAULT 0,
      -- While a worker processes the batch, until when its lease holds (renewed per record).
      leased_until timestamptz,
      ${CREATED_AT},
      completed_at timestamptz`,
    ),
    `CREATE INDEX legacy_batches_account_idx ON legacy_batches (account_id, id)`,
    // The sweep: batches not completed, oldest first.
    `CREATE INDEX legacy_batches_open_idx ON legacy_batches (created_at) WHERE completed_at IS NULL`,
    `CREATE TABLE legacy_batch_records (
      batch_id text COLLATE "C" NOT NULL REFERENCES legacy_batches (id) ON DELETE CASCADE,
      position integer NOT NULL,
      account_id text COLLATE "C" NOT NULL,
      client_request_id text NOT NULL,
      entity text NOT NULL,
      action text NOT NULL,
      entity_id text,
      -- data (create) or changes (update) exactly as sent
      body json,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      -- The resource the record created or changed, on success.
      result_id text,
      -- On failure: the legacy.validationError entry's code and errors [{pointer, detail}].
      error_code text,
      errors json,
      processed_at timestamptz,
      PRIMARY KEY (batch_id, position)
    )`,
  ];

  protected downSql = [
    `DROP TABLE legacy_batch_records`,
    `DROP TABLE legacy_batches`,
    `DELETE FROM webhook_subscriptions WHERE kind = 'legacy'`,
    `DROP INDEX webhook_subscriptions_one_legacy_uq`,
    `DROP INDEX webhook_subscriptions_account_id_url_key`,
    `ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_account_id_url_key UNIQUE (account_id, url)`,
    `ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_secret_by_kind`,
    `ALTER TABLE webhook_subscriptions ALTER COLUMN signing_secret SET NOT NULL`,
    `ALTER TABLE webhook_subscriptions DROP COLUMN kind`,
  ];
}
