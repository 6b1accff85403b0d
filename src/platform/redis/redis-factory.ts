import type { ConnectionOptions } from 'bullmq';
import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import { RedisNodeAuth, RedisTarget } from '../../config/redis-config';
import { REDIS_DISCONNECT_TIMEOUT_MS, redisReconnectDelayMs } from './redis-connection';

/**
 * The one place that makes Redis connections: every client of the API, the worker and the CLI (BullMQ
 * queues and workers, the rate limiter, health, the pacer, tests and benchmarks through the same
 * functions) is built here from the configured target (src/config/redis-config.ts), so one URL, a
 * Sentinel set and a Cluster are a configuration change, not a code path per caller.
 */
export type RedisClient = Redis | Cluster;

/** What differs between our clients: how a command behaves while Redis is away. */
export interface RedisClientOptions {
  /** null: a command waits for the reconnect (BullMQ requires it); 0: it fails at once. */
  maxRetriesPerRequest: number | null;
  /** false: a command while disconnected fails at once instead of waiting in memory. */
  enableOfflineQueue: boolean;
  /** A command that has not answered by then fails (a hung Redis); none: it waits. */
  commandTimeout?: number;
  enableAutoPipelining?: boolean;
  lazyConnect?: boolean;
  /** Reconnect schedule; our default reconnects within a second. `() => null` never reconnects. */
  retryStrategy?: (attempt: number) => number | null;
}

/** The options every data-node connection gets: credentials and TLS of the target, then ours. */
function nodeOptions(auth: RedisNodeAuth): RedisOptions {
  return {
    ...(auth.username ? { username: auth.username } : {}),
    ...(auth.password ? { password: auth.password } : {}),
    ...(auth.tls ? { tls: auth.ca ? { ca: auth.ca } : {} } : {}),
  };
}

/** A Redis or Cluster client for `target`, behaving as `options` say. */
export function createRedisClient(target: RedisTarget, options: RedisClientOptions): RedisClient {
  const { retryStrategy = redisReconnectDelayMs, ...rest } = options;
  const common: RedisOptions = { ...rest, disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS };
  if (target.mode === 'single') return new Redis(target.url, { ...common, retryStrategy });
  if (target.mode === 'sentinel') return new Redis(sentinelOptions(target, { ...common, retryStrategy }));
  return new Cluster(
    target.nodes.map(({ host, port }) => ({ host, port })),
    clusterOptions(target, options, retryStrategy),
  );
}

function sentinelOptions(target: Extract<RedisTarget, { mode: 'sentinel' }>, common: RedisOptions): RedisOptions {
  return {
    ...common,
    ...nodeOptions(target.auth),
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    // REDIS_TLS is for the data nodes: ioredis applies `tls` to them only with this set (the sentinels stay plain).
    enableTLSForSentinelMode: target.auth.tls,
    // Asking the sentinels again within a second after losing the primary, so a failover is followed at once.
    sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    // Subscribes to the sentinels' +switch-master: a failover is followed when announced, not when the old socket dies.
    failoverDetector: true,
  };
}

function clusterOptions(
  target: Extract<RedisTarget, { mode: 'cluster' }>,
  options: RedisClientOptions,
  retryStrategy: (attempt: number) => number | null,
): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, lazyConnect, ...perNode } = options;
  delete (perNode as Partial<RedisClientOptions>).retryStrategy;
  return {
    enableOfflineQueue,
    enableAutoPipelining,
    lazyConnect,
    clusterRetryStrategy: retryStrategy,
    // A managed cluster's TLS certificate names its configuration endpoint, not the nodes' addresses.
    dnsLookup: (address, callback) => callback(null, address),
    slotsRefreshTimeout: 2_000,
    redisOptions: { ...perNode, disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS, ...nodeOptions(target.auth) },
  };
}

/**
 * BullMQ's `connection` for a queue or worker. One server or Sentinel: options, and BullMQ opens (and
 * closes) its own connections with them. A Cluster: BullMQ takes only a client, so one is made here and
 * handed back as `owned`: BullMQ treats it as shared and leaves it open when the queue or worker closes,
 * so its owner disconnects it after that (QueueShutdown does). maxRetriesPerRequest null is what BullMQ
 * requires: a command waits for the reconnect instead of failing after a few retries.
 */
export function bullMqConnection(target: RedisTarget): { connection: ConnectionOptions; owned?: Cluster } {
  if (target.mode === 'single') {
    // BullMQ hands `url` to ioredis as its first argument, so ioredis parses it: user, percent-encoded
    // password, db, IPv6 brackets, and TLS for `rediss:`.
    return {
      connection: {
        url: target.url,
        maxRetriesPerRequest: null,
        retryStrategy: redisReconnectDelayMs,
        disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
      },
    };
  }
  if (target.mode === 'sentinel') {
    const options = sentinelOptions(target, {
      maxRetriesPerRequest: null,
      retryStrategy: redisReconnectDelayMs,
      disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
    });
    return { connection: options };
  }
  const cluster = createRedisClient(target, { maxRetriesPerRequest: null, enableOfflineQueue: true }) as Cluster;
  return { connection: cluster, owned: cluster };
}

/** Ends a client: QUIT when it is connected, else a drop (a QUIT waits forever for a Redis that is down). */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().then(
    () => undefined,
    () => client.disconnect(),
  );
}

/** BullMQ's options for one server by URL (tests and tools that point at a private redis-server). */
export function redisConnectionOptions(url: string): ConnectionOptions {
  return bullMqConnection({ mode: 'single', url }).connection;
}
