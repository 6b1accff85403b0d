import type { ConnectionOptions } from 'bullmq';

/**
 * Connection options for BullMQ (which opens and closes its own connections). BullMQ hands `url`
 * to ioredis as its first argument, so ioredis parses it: user, percent-encoded password, db,
 * IPv6 brackets, and TLS for `rediss:`. maxRetriesPerRequest null is what BullMQ requires: a
 * command waits for the reconnect instead of failing after a few retries.
 */
export function redisConnectionOptions(redisUrl: string): ConnectionOptions {
  return { url: redisUrl, maxRetriesPerRequest: null };
}
