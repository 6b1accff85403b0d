import Redis from 'ioredis';
import { dropTestDatabase } from './test-env';

/** Drops the run's database and Redis keys (set by global-setup in this process's env). */
export default async function globalTeardown(): Promise<void> {
  await dropTestDatabase(process.env.DATABASE_URL!);

  const redis = new Redis(process.env.REDIS_URL!);
  const stream = redis.scanStream({ match: `${process.env.REDIS_PREFIX}:*`, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  await redis.quit();
}
