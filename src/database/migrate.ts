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

if (require.main === module) {
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
