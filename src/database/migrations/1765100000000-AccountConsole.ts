import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account console (issue 24, docs/console.md): single-use sign-in links and browser sessions (tokens
 * stored as SHA-256 only, like API keys), the audit list of key creations and revocations, and what the
 * "API and AI assistants" page shows of a key: its label and last four characters (unknown, so null, for
 * keys issued before this migration: only their hash was ever stored).
 */
export class AccountConsole1765100000000 implements MigrationInterface {
  name = 'AccountConsole1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN label text, ADD COLUMN last_four text`);
    await q.query(`
      CREATE TABLE console_links (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE console_sessions (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        link_id text COLLATE "C" NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz
      )`);
    await q.query(`CREATE INDEX console_sessions_account_idx ON console_sessions (account_id, id)`);
    await q.query(`
      CREATE TABLE console_audit (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT now(),
        action text NOT NULL CHECK (action IN ('key.created', 'key.revoked')),
        api_key_id text COLLATE "C" NOT NULL,
        label text,
        session_id text COLLATE "C" NOT NULL
      )`);
    await q.query(`CREATE INDEX console_audit_account_idx ON console_audit (account_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_audit`);
    await q.query(`DROP TABLE console_sessions`);
    await q.query(`DROP TABLE console_links`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN label, DROP COLUMN last_four`);
  }
}
