import Redis from 'ioredis';
import { Client } from 'pg';
import { assertTestDatabase } from './test-env';

/** Drops the run's database and Redis keys (set by global-setup in this process's env). */
export default async function globalTeardown(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  assertTestDatabase(url);
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();

  const redis = new Redis(process.env.REDIS_URL!);
  const stream = redis.scanStream({ match: `${process.env.REDIS_PREFIX}:*`, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  await redis.quit();
}
