import { dropRedisPrefix, dropTestDatabase } from './test-env';

/** Drops the run's database and Redis keys (set by global-setup in this process's env). */
export default async function globalTeardown(): Promise<void> {
  await dropTestDatabase(process.env.DATABASE_URL!);
  const redisUrl = process.env.REDIS_URL!;
  const prefix = process.env.REDIS_PREFIX!;
  await dropRedisPrefix(redisUrl, prefix);
  // Files with queues of their own use `<run prefix>-<name>`; keys a file left behind (or re-created on close) go too.
  await dropRedisPrefix(redisUrl, `${prefix}-*`);
}
