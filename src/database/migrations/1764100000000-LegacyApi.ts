import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The legacy batched API (spec 9, docs/legacy.md): the durable queue of acknowledged batches and their
 * records (each record's outcome is written in the transaction that applies it), and the legacy
 * webhook as a subscription of kind `legacy`: one per account, subscribed to every event, unsigned
 * (no secret), hidden from /v1/webhooks. Platform subscriptions keep one per URL; a legacy webhook may
 * share its URL with one (the migration path promotes a Platform subscription to the legacy URL).
 */
export class LegacyApi1764100000000 implements MigrationInterface {
  name = 'LegacyApi1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions ADD COLUMN kind text NOT NULL DEFAULT 'platform' CHECK (kind IN ('platform', 'legacy'))`,
    );
    await q.query(`ALTER TABLE webhook_subscriptions ALTER COLUMN signing_secret DROP NOT NULL`);
    await q.query(
      `ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_secret_by_kind CHECK ((kind = 'legacy') = (signing_secret IS NULL))`,
    );
    // Same name as the constraint it replaces: the subscriptions service recognises its violation by it.
    await q.query(`ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_account_id_url_key`);
    await q.query(
      `CREATE UNIQUE INDEX webhook_subscriptions_account_id_url_key ON webhook_subscriptions (account_id, url) WHERE kind = 'platform'`,
    );
    await q.query(`CREATE UNIQUE INDEX webhook_subscriptions_one_legacy_uq ON webhook_subscriptions (account_id) WHERE kind = 'legacy'`);

    await q.query(`
      CREATE TABLE legacy_batches (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        -- The acknowledging request's x-request-id: the apiRequestId of every event the batch causes.
        request_id text NOT NULL,
        record_count integer NOT NULL CHECK (record_count BETWEEN 1 AND 20),
        -- Processing runs so far (a run that dies leaves its lease to run out; the sweep starts another).
        runs integer NOT NULL DEFAULT 0,
        -- While a worker processes the batch, until when its lease holds (renewed per record).
        leased_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX legacy_batches_account_idx ON legacy_batches (account_id, id)`);
    // The sweep: batches not completed, oldest first.
    await q.query(`CREATE INDEX legacy_batches_open_idx ON legacy_batches (created_at) WHERE completed_at IS NULL`);
    await q.query(`
      CREATE TABLE legacy_batch_records (
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
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE legacy_batch_records`);
    await q.query(`DROP TABLE legacy_batches`);
    await q.query(`DELETE FROM webhook_subscriptions WHERE kind = 'legacy'`);
    await q.query(`DROP INDEX webhook_subscriptions_one_legacy_uq`);
    await q.query(`DROP INDEX webhook_subscriptions_account_id_url_key`);
    await q.query(`ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_account_id_url_key UNIQUE (account_id, url)`);
    await q.query(`ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_secret_by_kind`);
    await q.query(`ALTER TABLE webhook_subscriptions ALTER COLUMN signing_secret SET NOT NULL`);
    await q.query(`ALTER TABLE webhook_subscriptions DROP COLUMN kind`);
  }
}
