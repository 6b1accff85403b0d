import { Client } from 'pg';
import { AppConfig, loadConfigOrExit } from '../config/config';
import { migrationDataSource } from './data-source';

/** Creates the database when it is missing (never in production: there it is provisioned). */
export async function ensureDatabase(config: Pick<AppConfig, 'databaseUrl' | 'isProduction'>): Promise<void> {
  if (config.isProduction) return;
  const target = new URL(config.databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(config.databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(config: Pick<AppConfig, 'databaseUrl' | 'isProduction'>): Promise<string[]> {
  await ensureDatabase(config);
  const dataSource = await migrationDataSource(config).initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

/** Reverts the last migration applied (its `down`, in a transaction); returns its name, undefined when none was applied. */
export async function revertLast(config: Pick<AppConfig, 'databaseUrl'>): Promise<string | undefined> {
  const dataSource = await migrationDataSource(config).initialize();
  try {
    const [last] = await dataSource.query(`SELECT name FROM schema_migrations ORDER BY id DESC LIMIT 1`);
    await dataSource.undoLastMigration({ transaction: 'each' });
    return last?.name;
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module && process.argv[2] === '--revert-last') {
  const config = loadConfigOrExit();
  revertLast(config)
    .then((name) => process.stdout.write(name ? `Reverted migration: ${name}\n` : 'No migration to revert\n'))
    .catch((error: Error) => {
      process.stderr.write(`Revert failed: ${error.message}\n`);
      process.exit(1);
    });
} else if (require.main === module) {
  const config = loadConfigOrExit();
  migrate(config)
    .then((applied) => {
      process.stdout.write(applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'Database schema is up to date\n');
    })
    .catch((error: Error) => {
      process.stderr.write(`Migration failed: ${error.message}\n`);
      process.exit(1);
    });
}
