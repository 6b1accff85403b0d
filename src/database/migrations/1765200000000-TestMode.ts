import { SqlMigration } from '../migration-sql';

/**
 * Test mode (issue 35, docs/test-mode.md): an account's sandbox is an account row of its own (id `sbx_…`)
 * linked to its live account, so every account-scoped table, idempotency record and event feed isolates it
 * unchanged; at most one per live account. A test key belongs to the live account and carries `test`.
 */
export class TestMode1765200000000 extends SqlMigration {
  name = 'TestMode1765200000000';

  protected readonly upSql = [
    `ALTER TABLE accounts ADD COLUMN live_account_id text COLLATE "C" REFERENCES accounts (id) ON DELETE CASCADE`,
    `CREATE UNIQUE INDEX accounts_live_account_idx ON accounts (live_account_id) WHERE live_account_id IS NOT NULL`,
    `ALTER TABLE api_keys ADD COLUMN test boolean NOT NULL DEFAULT false`,
  ];

  protected readonly downSql = [
    `ALTER TABLE api_keys DROP COLUMN test`,
    `DROP INDEX accounts_live_account_idx`,
    `ALTER TABLE accounts DROP COLUMN live_account_id`,
  ];
}
