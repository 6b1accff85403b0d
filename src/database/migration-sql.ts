import { MigrationInterface, QueryRunner } from 'typeorm';

// Outside migrations/: TypeORM loads every function exported from a file there as a migration.

/**
 * A migration that is only SQL: its statements each way, run in order (in the migration's transaction).
 * Applied migrations must keep creating the same schema, so rewrite how one is written, never what it runs.
 */
export abstract class SqlMigration implements MigrationInterface {
  abstract readonly name: string;
  protected abstract readonly upSql: readonly string[];
  protected abstract readonly downSql: readonly string[];

  async up(q: QueryRunner): Promise<void> {
    for (const sql of this.upSql) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of this.downSql) await q.query(sql);
  }
}

/** Ids are text in the "C" collation: ULID order is byte order, and keyset scans stay index-only. */
export const ID = `id text COLLATE "C" PRIMARY KEY`;
/** The owning account; its rows go with it. */
export const ACCOUNT_ID = `account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE`;
export const CREATED_AT = `created_at timestamptz NOT NULL DEFAULT now()`;
export const TIMESTAMPS = `${CREATED_AT}, updated_at timestamptz NOT NULL DEFAULT now()`;

/**
 * `CREATE TABLE <name> (id, account_id, <columns>)`: a resource an account owns, keyed by its id.
 * The columns keep their order (it is the table's column order).
 */
export function accountTable(name: string, columns: string): string {
  return `CREATE TABLE ${name} (${ID}, ${ACCOUNT_ID}, ${columns})`;
}
