/** Longest wait between two reconnects: Redis back means clients back within about a second. */
export const REDIS_RECONNECT_MAX_MS = 1_000;

/**
 * How long ioredis lets a socket it ends (disconnect()) close by itself before destroying it; its
 * default is 2 s. Its timer is armed even when the socket had already closed (a client dropped while
 * it waits to reconnect), and nothing clears it then: a process that closed its clients while Redis
 * was down was held that long after closing. 100 ms is still ample for an open socket's close.
 */
export const REDIS_DISCONNECT_TIMEOUT_MS = 100;

/**
 * ioredis' retryStrategy for every client of ours: 100 ms, 200 ms… then every second while Redis is
 * down (BullMQ's own default grows to 20 s, ioredis' to 2 s).
 */
export function redisReconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS);
}
