import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Pool } from 'undici';
import {
  BENCH_DATABASE_URL,
  BENCH_REDIS_PREFIX,
  BENCH_REDIS_URL,
  productionEnv,
  SeededAccount,
  seedAccount,
  seedProperties,
  sampledTracingEnv,
  tracingEnv,
  webhookEnv,
} from './env';
import { BenchProcess, freePort, startApi, startNode, waitFor, waitForHttp } from './processes';
import { PgBouncer, startPgBouncer } from '../../test/support/pgbouncer';

export const RESULTS_DIR = join(__dirname, '..', '..', '..', 'bench', 'results');

/** What a scenario reports: one row of the table, and the details behind it (bench/results/<id>.json). */
export interface Outcome {
  ours: string;
  baseline: string;
  ratio: string;
  pass: boolean;
  /** Why a figure cannot be trusted (a non-2xx, a lost or doubled delivery, a row count that does not match). */
  dishonest?: string;
  details: Record<string, unknown>;
}

/**
 * The processes and data of one bench run, started on first use and shared by the scenarios
 * that need them: the production API with 10,000 seeded properties (S1, S2), the raw baselines,
 * the webhook receiver, and an API in webhook mode (S5, S6).
 */
export class BenchContext {
  private readonly processes: BenchProcess[] = [];
  private pgbouncer?: PgBouncer;
  private cached = new Map<string, Promise<unknown>>();
  /** Figures one scenario leaves for another (S7 runs at 70% of S2's throughput). */
  readonly figures = new Map<string, number>();
  db!: Client;

  async open(): Promise<void> {
    this.db = new Client({ connectionString: BENCH_DATABASE_URL });
    // A connection lost mid-run fails the scenario using it, not the whole process unannounced.
    this.db.on('error', (error) => process.stderr.write(`bench database connection: ${error.message}\n`));
    await this.db.connect();
    // Whatever ends the driver, no child process outlives it.
    process.once('exit', () => this.processes.forEach((p) => p.kill()));
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    await this.pgbouncer?.stop();
    await this.db?.end().catch(() => undefined);
  }

  track(process: BenchProcess): BenchProcess {
    this.processes.push(process);
    return process;
  }

  private once<T>(name: string, start: () => Promise<T>): Promise<T> {
    if (!this.cached.has(name)) this.cached.set(name, start());
    return this.cached.get(name) as Promise<T>;
  }

  /** The production API and its seeded account: 10,000 properties with 0-3 pictures each. */
  readApi(): Promise<{ origin: string; process: BenchProcess; account: SeededAccount; propertyIds: string[] }> {
    return this.once('readApi', async () => {
      const account = await seedAccount(this.db, 'reads');
      const propertyIds = await seedProperties(this.db, account.accountId, 10_000);
      const { origin, process } = await startApi('api', productionEnv());
      this.track(process);
      return { origin, process, account, propertyIds };
    });
  }

  /**
   * A second production API reading the same data through a private PgBouncer in transaction mode
   * (20 server connections, as the API's own pool) with DATABASE_POOLER=transaction (S2P).
   */
  pooledReadApi(): Promise<{ origin: string }> {
    return this.once('pooledReadApi', async () => {
      await this.readApi(); // its seed
      const executable = execFileSync('sh', ['-c', 'command -v pgbouncer || echo /usr/sbin/pgbouncer'], { encoding: 'utf8' }).trim();
      this.pgbouncer = await startPgBouncer(executable, BENCH_DATABASE_URL);
      const { origin, process } = await startApi(
        'pooled-api',
        productionEnv({ DATABASE_URL: this.pgbouncer.url, DATABASE_POOLER: 'transaction' }),
      );
      this.track(process);
      return { origin };
    });
  }

  /**
   * A third production API connected directly, like S2's, but with the production default
   * DATABASE_POOLER=transaction (unnamed statements, parsed and planned on every call) (S2P).
   */
  unpreparedReadApi(): Promise<{ origin: string }> {
    return this.once('unpreparedReadApi', async () => {
      await this.readApi(); // its seed
      const { origin, process } = await startApi('unprepared-api', productionEnv({ DATABASE_POOLER: 'transaction' }));
      this.track(process);
      return { origin };
    });
  }

  /** Stops the shared production API (S7 measures a fresh one and wants the CPU to itself). */
  async stopReadApi(): Promise<void> {
    const api = this.cached.get('readApi') as Promise<{ process: BenchProcess }> | undefined;
    if (api) await (await api).process.stop();
  }

  /** A second production API on readApi's data, tracing every request to the OTLP sink (S2T). */
  tracedReadApi(): Promise<{ origin: string }> {
    return this.once('tracedReadApi', async () => {
      await this.readApi(); // its seed
      const { origin, process } = await startApi('traced-api', productionEnv(tracingEnv(await this.otlpSink())));
      this.track(process);
      return { origin };
    });
  }

  /** A third production API on readApi's data, tracing one request in ten (S2T's sampled variant). */
  sampledReadApi(): Promise<{ origin: string }> {
    return this.once('sampledReadApi', async () => {
      await this.readApi(); // its seed
      const { origin, process } = await startApi('sampled-api', productionEnv(sampledTracingEnv(await this.otlpSink())));
      this.track(process);
      return { origin };
    });
  }

  /** The local OTLP/HTTP collector stand-in (bench/support/otlp-sink.ts). */
  otlpSink(): Promise<string> {
    return this.once('otlpSink', async () => {
      const port = await freePort();
      const sink = this.track(
        startNode('otlp-sink', join(__dirname, 'otlp-sink.js'), { PATH: process.env.PATH ?? '' }, { args: [String(port)] }),
      );
      const origin = `http://127.0.0.1:${port}`;
      await waitForHttp(origin, '/__stats', sink);
      return origin;
    });
  }

  async otlpSinkStats(): Promise<{ exports: number; bytes: number }> {
    const res = await fetch(`${await this.otlpSink()}/__stats`);
    return (await res.json()) as { exports: number; bytes: number };
  }

  rawServer(): Promise<string> {
    return this.once('raw', async () => {
      const port = await freePort();
      const input = JSON.stringify({
        port,
        databaseUrl: BENCH_DATABASE_URL,
        redisUrl: BENCH_REDIS_URL,
        redisPrefix: `${BENCH_REDIS_PREFIX}-raw`,
      });
      const raw = this.track(
        startNode('raw', join(__dirname, '..', 'baselines', 'raw-server.js'), { PATH: process.env.PATH ?? '' }, { args: [input] }),
      );
      const origin = `http://127.0.0.1:${port}`;
      await waitForHttp(origin, '/health', raw);
      return origin;
    });
  }

  receiver(): Promise<string> {
    return this.once('receiver', async () => {
      const port = await freePort();
      const receiver = this.track(
        startNode('receiver', join(__dirname, 'receiver.js'), { PATH: process.env.PATH ?? '' }, { args: [String(port)] }),
      );
      const origin = `http://127.0.0.1:${port}`;
      await waitForHttp(origin, '/__stats', receiver);
      return origin;
    });
  }

  /** The API in webhook mode (see webhookEnv), for creating subscriptions and the events they receive. */
  webhookApi(): Promise<{ origin: string; pool: Pool }> {
    return this.once('webhookApi', async () => {
      const { origin, process } = await startApi('webhook-api', webhookEnv());
      this.track(process);
      return { origin, pool: new Pool(origin, { connections: 20 }) };
    });
  }

  /** The API in webhook mode tracing every request to the OTLP sink (S5T's events carry its trace context). */
  tracedWebhookApi(): Promise<{ origin: string; pool: Pool }> {
    return this.once('tracedWebhookApi', async () => {
      const { origin, process } = await startApi('traced-webhook-api', webhookEnv(tracingEnv(await this.otlpSink())));
      this.track(process);
      return { origin, pool: new Pool(origin, { connections: 20 }) };
    });
  }

  /** The API in webhook mode tracing one request in ten (S5T's sampled rounds: the worker follows each event's decision). */
  sampledWebhookApi(): Promise<{ origin: string; pool: Pool }> {
    return this.once('sampledWebhookApi', async () => {
      const { origin, process } = await startApi('sampled-webhook-api', webhookEnv(sampledTracingEnv(await this.otlpSink())));
      this.track(process);
      return { origin, pool: new Pool(origin, { connections: 20 }) };
    });
  }

  async receiverStats(path: string, withArrivals = false): Promise<ReceiverStats> {
    const res = await fetch(`${await this.receiver()}/__stats?path=${encodeURIComponent(path)}${withArrivals ? '&arrivals' : ''}`);
    return (await res.json()) as ReceiverStats;
  }

  /** Forgets every delivery the receiver has noted. */
  async resetReceiver(): Promise<void> {
    const res = await fetch(`${await this.receiver()}/__stats`, { method: 'DELETE' });
    await res.arrayBuffer();
  }

  /** Waits until `count` distinct deliveries reached `path`. */
  async awaitDeliveries(path: string, count: number, timeoutMs = 180_000): Promise<ReceiverStats> {
    await waitFor(`${count} deliveries on ${path}`, async () => (await this.receiverStats(path)).unique >= count, timeoutMs);
    return this.receiverStats(path);
  }

  /** A figure from this run, else from the last recorded run of its scenario. */
  figure(name: string, scenario: string, pick: (details: Record<string, unknown>) => unknown): number | undefined {
    if (this.figures.has(name)) return this.figures.get(name);
    try {
      const recorded = JSON.parse(readFileSync(join(RESULTS_DIR, `${scenario}.json`), 'utf8')) as { details: Record<string, unknown> };
      const value = pick(recorded.details);
      return typeof value === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  }
}

export interface ReceiverStats {
  posts: number;
  unique: number;
  firstAt: number | null;
  lastAt: number | null;
  arrivals?: Record<string, number>;
}

/** The members of API answers the bench reads. */
export interface ApiBody {
  propertyId?: string;
  [member: string]: unknown;
}

/** POSTs JSON as the account, returning status and parsed body. */
export async function postJson(pool: Pool, apiKey: string, path: string, body: string): Promise<{ status: number; body: ApiBody }> {
  const res = await pool.request({ method: 'POST', path, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
  const text = await res.body.text();
  return { status: res.statusCode, body: (text ? JSON.parse(text) : {}) as ApiBody };
}
