import type { ConnectionOptions } from 'bullmq';

/** Longest wait between two reconnects: Redis back means clients back within about a second. */
export const REDIS_RECONNECT_MAX_MS = 1_000;

/**
 * ioredis' retryStrategy for every client of ours: 100 ms, 200 ms… then every second while Redis is
 * down (BullMQ's own default grows to 20 s, ioredis' to 2 s).
 */
export function redisReconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS);
}

/**
 * Connection options for BullMQ (which opens and closes its own connections). BullMQ hands `url`
 * to ioredis as its first argument, so ioredis parses it: user, percent-encoded password, db,
 * IPv6 brackets, and TLS for `rediss:`. maxRetriesPerRequest null is what BullMQ requires: a
 * command waits for the reconnect instead of failing after a few retries.
 */
export function redisConnectionOptions(redisUrl: string): ConnectionOptions {
  return { url: redisUrl, maxRetriesPerRequest: null, retryStrategy: redisReconnectDelayMs };
}
