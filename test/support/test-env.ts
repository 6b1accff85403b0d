import Redis, { Cluster } from 'ioredis';
import { loadConfig } from '../../src/config/config';
import type { RedisTarget } from '../../src/config/redis-config';
import { closeRedisClient, createRedisClient } from '../../src/platform/redis/redis-factory';
import { tmpdir } from 'node:os';
import { Client } from 'pg';

/**
 * The environment every end-to-end test process shares. The run owns one database
 * and one Redis key prefix, both named after the run, so parallel runs never meet.
 */
export const TEST_RUN_ID = process.env.TEST_RUN_ID ?? `${process.pid}`;

/** The PostgreSQL server the run uses (its `postgres` database); the PgBouncer run points it at its pooler. */
export function testServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function testDatabaseUrl(runId: string): string {
  const base = new URL(testServerUrl());
  base.pathname = `/property_ops_test_${runId}`;
  return base.toString();
}

export function assertTestDatabase(url: string): void {
  const name = new URL(url).pathname.slice(1);
  if (!name.includes('test')) throw new Error(`Refusing to run tests against database "${name}": its name must contain "test"`);
}

/** Drops the run's database (refusing any whose name lacks "test"), connected to the server's postgres database. */
export async function dropTestDatabase(url: string): Promise<void> {
  assertTestDatabase(url);
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Removes every Redis key under a prefix: the run's own (teardown) or a test file's private one. `redis`:
 * the app's target (config.redis) or a URL; on a Cluster each primary is scanned, and each key unlinked
 * on its own node (keys of different slots cannot go in one UNLINK).
 */
export async function dropRedisPrefix(redis: RedisTarget | string, prefix: string): Promise<void> {
  const target: RedisTarget = typeof redis === 'string' ? { mode: 'single', url: redis } : redis;
  const client = createRedisClient(target, { maxRetriesPerRequest: null, enableOfflineQueue: true });
  try {
    const nodes: Redis[] = client instanceof Cluster ? (await waitForCluster(client), client.nodes('master')) : [client];
    for (const node of nodes) {
      const stream = node.scanStream({ match: `${prefix}:*`, count: 500 });
      for await (const keys of stream as AsyncIterable<string[]>) {
        if (client instanceof Cluster) await Promise.all(keys.map((key) => node.unlink(key)));
        else if (keys.length) await node.unlink(...keys);
      }
    }
  } finally {
    await closeRedisClient(client);
  }
}

async function waitForCluster(cluster: Cluster): Promise<void> {
  if (cluster.status !== 'ready') await new Promise((resolve) => cluster.once('ready', resolve));
}

const REDIS_MODES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/**
 * The environment of an app or worker a test starts: the run's, then `overrides`. A file that points
 * the app at a Redis of its own (REDIS_URL of a private redis-server, a private Sentinel set or Cluster)
 * means that one, whatever the run's is: the run's other Redis settings are dropped then (two at once
 * stop the process).
 */
export function appEnvironment(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...overrides };
  if (REDIS_MODES.some((name) => overrides[name])) for (const name of REDIS_MODES) if (!overrides[name]) env[name] = '';
  return env;
}

/** The run's Redis as the app reads it (one server, or the Cluster of the PgBouncer pass). */
export function runRedis(): RedisTarget {
  return loadConfig(process.env).redis;
}

/** Keys matching `pattern` on every primary of `target`. */
export async function redisKeys(target: RedisTarget, pattern: string): Promise<string[]> {
  const client = createRedisClient(target, { maxRetriesPerRequest: null, enableOfflineQueue: true });
  try {
    const nodes: Redis[] = client instanceof Cluster ? (await waitForCluster(client), client.nodes('master')) : [client];
    return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
  } finally {
    await closeRedisClient(client);
  }
}

export function testEnvironment(runId: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    TEST_RUN_ID: runId,
    DATABASE_URL: testDatabaseUrl(runId),
    // Direct unless the run goes through a pooler (test/support/global-setup-pgbouncer.ts).
    DATABASE_POOLER: process.env.TEST_DATABASE_POOLER ?? 'none',
    // The Cluster of the PgBouncer pass (global-setup-pgbouncer.ts), else one server. An empty value counts as not set.
    REDIS_URL: process.env.TEST_REDIS_CLUSTER_NODES ? '' : (process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'),
    REDIS_CLUSTER_NODES: process.env.TEST_REDIS_CLUSTER_NODES ?? '',
    REDIS_PREFIX: `pop-test-${runId}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    CURSOR_SECRET: 'test-cursor-secret',
    ALLOW_PRIVATE_URLS: 'true',
    // Generous limits so ordinary tests never trip them; the rate-limit tests set their own.
    RATE_LIMIT_PER_SECOND: '1000',
    RATE_LIMIT_BURST: '2000',
    RATE_LIMIT_PER_DAY: '1000000',
    // Every test client is 127.0.0.1: only the tests of this limit trip it (on their own Redis prefix).
    RATE_LIMIT_FAILED_AUTH_PER_SECOND: '1000',
    RATE_LIMIT_FAILED_AUTH_BURST: '100000',
    WEBHOOK_RETRY_BASE_MS: '200',
    // The reminders' sweep scans every account of the shared database: off unless a file turns it on
    // (on a database of its own) or calls the sweep scoped to its accounts.
    REMINDER_SWEEP_INTERVAL_MS: '0',
    // So does the legacy batches' sweep (and past a test's LEGACY_SUNSET_AT it fails what it finds).
    LEGACY_SWEEP_INTERVAL_MS: '0',
    // The same for the calendar feeds' scan for due feeds: tests sync their own feeds.
    CALENDAR_SCAN_INTERVAL_MS: '0',
    WEBHOOK_TIMEOUT_MS: '2000',
    BLOB_STORAGE_DIR: `${tmpdir()}/property-ops-test-${runId}/blobs`,
  };
}
