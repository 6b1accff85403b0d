import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts, API keys, idempotency records and the event log (transactional outbox).
 * Ids are text in the "C" collation: ULID order is byte order, and keyset scans stay index-only.
 */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL CHECK (plan IN ('basic', 'pro', 'business')),
        subscription_status text NOT NULL CHECK (subscription_status IN ('active', 'inactive')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        key_hash bytea NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('platform', 'legacy')),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_account_idx ON api_keys (account_id, id)`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        key text NOT NULL,
        fingerprint text NOT NULL,
        lock_token uuid NOT NULL,
        locked_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        response_status integer,
        response_body json,
        completed_at timestamptz,
        PRIMARY KEY (account_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`);
    await q.query(`
      CREATE TABLE events (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        event_name text NOT NULL,
        client_request_id text NOT NULL,
        api_request_id text NOT NULL,
        results json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        dispatched_at timestamptz
      )`);
    // The feed reads in commit-safe order (transaction id, then id); see events.repository.ts.
    await q.query(`CREATE INDEX events_feed_idx ON events (account_id, tx_id, id)`);
    await q.query(`CREATE INDEX events_created_idx ON events (created_at)`);
    await q.query(`CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE events`);
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE accounts`);
  }
}
