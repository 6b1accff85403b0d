import { ACCOUNT_ID, accountTable, CREATED_AT, ID, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Accounts, API keys, idempotency records and the event log (transactional outbox).
 * Ids are text in the "C" collation: ULID order is byte order, and keyset scans stay index-only.
 */
export class Foundation1763700000000 extends SqlMigration {
  name = 'Foundation1763700000000';

  protected upSql = [
    `CREATE TABLE accounts (
      ${ID},
      name text NOT NULL,
      plan text NOT NULL CHECK (plan IN ('basic', 'pro', 'business')),
      subscription_status text NOT NULL CHECK (subscription_status IN ('active', 'inactive')),
      ${TIMESTAMPS}
    )`,
    accountTable(
      'api_keys',
      `key_hash bytea NOT NULL UNIQUE,
      kind text NOT NULL CHECK (kind IN ('platform', 'legacy')),
      ${CREATED_AT},
      last_used_at timestamptz,
      revoked_at timestamptz`,
    ),
    `CREATE INDEX api_keys_account_idx ON api_keys (account_id, id)`,
    `CREATE TABLE idempotency_keys (
      ${ACCOUNT_ID},
      key text NOT NULL,
      fingerprint text NOT NULL,
      lock_token uuid NOT NULL,
      locked_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      response_status integer,
      response_body json,
      completed_at timestamptz,
      PRIMARY KEY (account_id, key)
    )`,
    `CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`,
    accountTable(
      'events',
      `event_name text NOT NULL,
      client_request_id text NOT NULL,
      api_request_id text NOT NULL,
      results json NOT NULL,
      ${CREATED_AT},
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      dispatched_at timestamptz`,
    ),
    // The feed reads in commit-safe order (transaction id, then id); see events.repository.ts.
    `CREATE INDEX events_feed_idx ON events (account_id, tx_id, id)`,
    `CREATE INDEX events_created_idx ON events (created_at)`,
    `CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`,
  ];

  protected downSql = [`DROP TABLE events`, `DROP TABLE idempotency_keys`, `DROP TABLE api_keys`, `DROP TABLE accounts`];
}
