import { Client } from 'pg';
import { loadConfig } from '../../src/config/config';
import { dropRedisPrefix, dropTestDatabase } from './test-env';

/** Drops the run's database and Redis keys (set by global-setup in this process's env), and the files' private databases. */
export default async function globalTeardown(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL!;
  await dropTestDatabase(databaseUrl);
  await dropPrivateDatabases(databaseUrl);
  // The run's Redis as the app reads it (REDIS_URL, or the Cluster of the PgBouncer pass).
  const redis = loadConfig(process.env).redis;
  const prefix = process.env.REDIS_PREFIX!;
  await dropRedisPrefix(redis, prefix);
  // Files with queues of their own use `<run prefix>-<name>`; keys a file left behind (or re-created on close) go too.
  await dropRedisPrefix(redis, `${prefix}-*`);
}

/** Databases a test file created for itself (test/support/private-services.ts) and left behind when it failed. */
async function dropPrivateDatabases(databaseUrl: string): Promise<void> {
  const admin = new URL(databaseUrl);
  const runDatabase = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  let names: string[];
  try {
    const rows = await client.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [`${runDatabase}_`]);
    names = rows.rows.map((row: { datname: string }) => row.datname);
  } finally {
    await client.end();
  }
  for (const name of names) {
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    await dropTestDatabase(url.toString());
  }
}
