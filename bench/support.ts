import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { Pool } from 'undici';
import { AppConfig, loadConfig } from '../src/config/config';
import { migrate } from '../src/database/migrate';
import { createHttpApp } from '../src/http-app';

/**
 * Shared pieces of every benchmark: a dedicated database, the real app booted
 * in-process from the compiled code, a keep-alive HTTP client, and statistics.
 * Benchmarks report ratios measured side by side in one run, never absolute
 * thresholds, because the machine's speed varies.
 */
export const BENCH_DATABASE = 'property_ops_bench';

export function benchEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${BENCH_DATABASE}`,
    REDIS_PREFIX: 'pop-bench',
    LOG_LEVEL: 'silent',
    CURSOR_SECRET: 'bench-cursor-secret',
    ALLOW_PRIVATE_URLS: 'true',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '2000000',
    RATE_LIMIT_PER_DAY: '1000000000',
    ...overrides,
  };
}

/** A fresh database for the run, migrated like production. */
export async function freshDatabase(config: AppConfig): Promise<void> {
  const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
  await admin.end();
  await migrate(config);
}

/** Boots the API on a fresh bench database. */
export async function bootApp(overrides: Record<string, string> = {}, extraModules: Parameters<typeof createHttpApp>[1] = []) {
  const config = loadConfig(benchEnv(overrides));
  await freshDatabase(config);
  const app: INestApplication = await createHttpApp(config, extraModules);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, config, origin: `http://127.0.0.1:${address.port}` };
}

/** One keep-alive connection: latency benchmarks measure requests one at a time. */
export function httpClient(origin: string): Pool {
  return new Pool(origin, { connections: 1, pipelining: 1 });
}

export async function timeRequest(pool: Pool, path: string, headers: Record<string, string> = {}, expectStatus = 200): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await pool.request({ method: 'GET', path, headers });
  await res.body.arrayBuffer();
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (res.statusCode !== expectStatus) throw new Error(`GET ${path} answered ${res.statusCode}, expected ${expectStatus}`);
  return elapsed;
}

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), mean: sorted.reduce((s, v) => s + v, 0) / sorted.length };
}

/**
 * Runs the named variants in interleaved rounds so drift in machine load hits
 * every variant alike; returns each variant's samples.
 */
export async function interleave(
  variants: Record<string, () => Promise<number>>,
  rounds: number,
  perRound: number,
): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(variants)) {
      for (let i = 0; i < perRound; i++) samples[name].push(await run());
    }
  }
  return samples;
}

export const ms = (value: number) => `${value.toFixed(3)} ms`;
