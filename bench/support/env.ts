import { Client } from 'pg';
import { generateApiKey, hashApiKey } from '../../src/modules/auth/auth.rules';

/**
 * What every process of a bench run shares: its own database and Redis prefix (never the
 * development ones; only this module's importer, the driver, names them and hands them on), production settings (silent logs, a real cursor secret) and rate limits
 * raised far past any load the bench makes, so the limiter runs on every request but never refuses.
 */
/** Each run has its own database and Redis prefix, dropped at its end: two runs on one machine never touch each other's data. */
const RUN_ID = process.env.BENCH_RUN_ID ?? String(process.pid);
export const BENCH_DATABASE = `property_ops_bench_${RUN_ID}`;
export const BENCH_DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${BENCH_DATABASE}`;
export const BENCH_REDIS_URL = 'redis://127.0.0.1:6379';
export const BENCH_REDIS_PREFIX = `pop-bench-${RUN_ID}`;

export type Env = Record<string, string>;

export function productionEnv(overrides: Env = {}): Env {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: BENCH_DATABASE_URL,
    // Straight to PostgreSQL: named prepared statements (S2P measures the transaction-pooler setting).
    DATABASE_POOLER: 'none',
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_PREFIX: BENCH_REDIS_PREFIX,
    LOG_LEVEL: 'silent',
    CURSOR_SECRET: 'bench-cursor-secret-of-32-chars!',
    SECRETS_ENCRYPTION_KEY: 'bench:OZL4Q1KA3dRhOSvaV1m1us5j2/37RY0W1OyRiQHpr9g=',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '2000000',
    RATE_LIMIT_PER_DAY: '1000000000',
    ...overrides,
  };
}

/**
 * The webhook scenarios deliver to a receiver on 127.0.0.1, which the outbound URL policy refuses
 * in production (and ALLOW_PRIVATE_URLS is refused with NODE_ENV=production). NODE_ENV changes
 * nothing else at run time (config checks and the migration runner only), so these processes run
 * as development with private URLs allowed, and are otherwise configured as production.
 */
/**
 * Tracing on (docs/operations.md "Traces") at 100% sampling, exported to `collector` over OTLP/HTTP with
 * the SDK's default protocol (protobuf) and batching: what S2T and S5T measure against tracing off.
 */
export function tracingEnv(collector: string): Env {
  return { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_TRACES_SAMPLER: 'always_on' };
}

/** Tracing on as tracingEnv, sampling one trace in ten (the sampled variant of S2T and S5T, docs/operations.md "Traces"). */
export function sampledTracingEnv(collector: string): Env {
  return { ...tracingEnv(collector), OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
}

export function webhookEnv(overrides: Env = {}): Env {
  return productionEnv({ NODE_ENV: 'development', ALLOW_PRIVATE_URLS: 'true', ...overrides });
}

export async function withDatabase<T>(url: string, work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

export async function dropBenchDatabase(): Promise<void> {
  await withDatabase('postgres://postgres@127.0.0.1:5432/postgres', (db) =>
    db.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`),
  );
}

export interface SeededAccount {
  accountId: string;
  apiKey: string;
}

/** An account on the pro plan with one key, written directly (the bench needs its key in clear). */
export async function seedAccount(db: Client, name: string): Promise<SeededAccount> {
  const accountId = `acct_bench_${name}`;
  const apiKey = generateApiKey();
  await db.query(`INSERT INTO accounts (id, name, plan, subscription_status) VALUES ($1, $2, 'pro', 'active')`, [accountId, name]);
  await db.query(`INSERT INTO api_keys (id, account_id, key_hash, kind) VALUES ($1, $2, $3, 'platform')`, [
    `key_bench_${name}`,
    accountId,
    hashApiKey(apiKey),
  ]);
  return { accountId, apiKey };
}

/**
 * Properties in one set-based statement (generate_series), shaped as the API writes them, each
 * with `i % 4` pictures (0-3), then ANALYZE so the planner knows the table. Returns the ids.
 */
export async function seedProperties(db: Client, accountId: string, count: number): Promise<string[]> {
  const id = (expr: string) => `'prop_01' || lpad(${expr}::text, 24, '0')`;
  await db.query(
    `INSERT INTO properties (id, account_id, source_id, name, country_code, time_zone, latitude, longitude, address, type,
                             beds, bedrooms, bathrooms, tags, bed_details, details)
     SELECT ${id('i')}, $1, 'src-' || i, 'Bench property ' || i, 'FR', 'Europe/Paris',
            48.85 + (i % 1000) / 10000.0, 2.35 + (i % 1000) / 10000.0, 'France', 'apartment', 2, 1, 1,
            ARRAY['bench', 'tag-' || (i % 10)],
            '[{"bedType":"queen","twinable":false,"displayLabel":"Queen bed","quantity":1}]'::jsonb,
            jsonb_build_object('information', 'Bench property number ' || i, 'wifiName', 'wifi-' || i)
       FROM generate_series(1, $2::int) AS i`,
    [accountId, count],
  );
  await db.query(
    `INSERT INTO property_pictures (id, account_id, property_id, source_id, source_url, storage_key, content_type, byte_size)
     SELECT 'pic_01' || lpad((i * 4 + n)::text, 24, '0'), $1, ${id('i')}, 'pic-' || n, 'https://example.com/' || i || '/' || n || '.jpg',
            'bench/' || i || '/' || n, 'image/jpeg', 1024
       FROM generate_series(1, $2::int) AS i, generate_series(1, 3) AS n
      WHERE n <= i % 4`,
    [accountId, count],
  );
  await db.query('ANALYZE');
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM properties WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows.map((row) => row.id);
}

/** A property create body (the shape POST /v1/properties takes). */
export function propertyBody(n: number): string {
  return JSON.stringify({
    sourceId: `bench-${process.pid}-${Date.now()}-${n}`,
    name: `Bench property ${n}`,
    countryCode: 'FR',
    timeZone: 'Europe/Paris',
    location: { latitude: 48.8566, longitude: 2.3522 },
    beds: 2,
    bedrooms: 1,
    bathrooms: 1,
    tags: ['bench'],
  });
}
