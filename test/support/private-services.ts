import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { Client } from 'pg';
import { migrate } from '../../src/database/migrate';
import { REDIS_DISCONNECT_TIMEOUT_MS } from '../../src/platform/redis/redis-connection';
import { dropTestDatabase, TEST_RUN_ID, testDatabaseUrl } from './test-env';
import { waitUntil } from './wait';

/**
 * Services of a test file's own, for tests whose periodic jobs scan the whole database or that stop
 * and restart Redis: a migrated database of the run (`property_ops_test_<run>_<name>`) and a
 * redis-server on a free port. Nothing here touches the shared Redis or another file's database.
 */
export interface PrivateDatabase {
  url: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

export async function createPrivateDatabase(name: string): Promise<PrivateDatabase> {
  const url = testDatabaseUrl(`${TEST_RUN_ID}_${name}`);
  await dropTestDatabase(url);
  await migrate({ databaseUrl: url, isProduction: false });
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    url,
    query: async (sql, params) => (await client.query(sql, params)).rows,
    drop: async () => {
      await client.end();
      await dropTestDatabase(url);
    },
  };
}

export interface PrivateRedis {
  url: string;
  /** Stops the server (SIGKILL: no save, nothing flushed); its data is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing when it runs). */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, a hung Redis. */
  pause(): void;
  /** Lets a frozen server go on (SIGCONT). */
  resume(): void;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    if (server && server.exitCode === null && server.signalCode === null) return;
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    server = child;
    await waitUntil(() => ping(url), 10_000, `redis-server on port ${port}`);
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT'); // a frozen process dies only once continued
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url, start, stop, pause: () => server?.kill('SIGSTOP'), resume: () => server?.kill('SIGCONT') };
}

/** A private database and redis-server together, and the app's environment pointing at them. */
export interface PrivateServices {
  db: PrivateDatabase;
  redis: PrivateRedis;
  /** DATABASE_URL, REDIS_URL and a REDIS_PREFIX of the file's name, then `settings`. */
  env: Record<string, string>;
  /** Stops the redis-server and drops the database. */
  close(): Promise<void>;
}

export async function startPrivateServices(name: string, settings: Record<string, string> = {}): Promise<PrivateServices> {
  const db = await createPrivateDatabase(name);
  const redis = await startPrivateRedis();
  const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: `pop-test-${TEST_RUN_ID}-${name}`, ...settings };
  return {
    db,
    redis,
    env,
    close: async () => {
      await redis.stop();
      await db.drop();
    },
  };
}

async function ping(url: string): Promise<boolean> {
  // The app's disconnect timeout: with ioredis' own (2 s), a failed ping held the process 2 s after it.
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** `count` distinct free ports (freePort twice in a row may well return the same one). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
