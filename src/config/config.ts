import { config as readDotEnv } from 'dotenv';
import { bool, cleanEnv, port, str } from 'envalid';
import {
  httpUrl,
  instant,
  keyring,
  nonEmptyStr,
  nonNegativeInt,
  positiveInt,
  postgresUrl,
  readPackageVersion,
  trustProxy,
} from './env-validators';
import { ConfigError } from './config-error';
import { DEVELOPMENT_KEYRING, Keyring, usesDevelopmentKey } from './keyring';
import { readRedisTarget, RedisTarget } from './redis-config';

export { ConfigError };

/**
 * The one place that reads the environment. Every process (API, worker, CLI)
 * calls loadConfig() once at start; nothing else touches process.env.
 */
export interface AppConfig {
  nodeEnv: 'development' | 'test' | 'production';
  isProduction: boolean;
  version: string;
  port: number;
  databaseUrl: string;
  /**
   * What stands between us and PostgreSQL: `transaction` (a pooler that hands each transaction any
   * server connection, e.g. PgBouncer's transaction mode) keeps no state on a connection past its
   * transaction; `session` (a pooler that gives each client one server connection) and `none` (a
   * direct connection) let the hot reads use named prepared statements. See docs/operations.md.
   */
  databasePooler: DatabasePooler;
  /**
   * Longest wait for a database connection (a new one, or a free one of the pool); past it the request
   * answers 503. Bounds how long requests hang when the server is unreachable rather than refusing.
   */
  databaseConnectTimeoutMs: number;
  /** REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES (src/config/redis-config.ts): every Redis connection is made from it. */
  redis: RedisTarget;
  /** Prefix of every Redis key the app owns (queues, rate limits); lets test runs share one Redis. */
  redisPrefix: string;
  errorsBaseUrl: string;
  publicBaseUrl: string;
  logLevel: string;
  cursorSecret: string;
  allowPrivateUrls: boolean;
  /** Mounts the /v1/testHelpers routes (drive the provider side of job requests); never in production. */
  testHelpersEnabled: boolean;
  rateLimit: {
    perSecond: number;
    burst: number;
    perDay: number;
    /** Length of the "per second" window (the burst allowance refills over ten of them); tests lengthen it. */
    windowSeconds: number;
    /** Failed authentications (missing or unknown x-api-key) per client address. */
    failedAuth: { perSecond: number; burst: number };
  };
  /** Express's `trust proxy`: which proxies' X-Forwarded-For to believe when naming the client address. */
  trustProxy: false | number | string[];
  idempotencyTtlHours: number;
  blobStorageDir: string;
  webhook: {
    timeoutMs: number;
    retryBaseMs: number;
    concurrencyPerSubscription: number;
    /** Delivery jobs one worker process runs at once (across all subscriptions and delivery queues). */
    deliveryConcurrency: number;
    /**
     * Delivery queues (src/modules/webhooks/delivery-queues.ts), each subscription always on the same one:
     * on a Redis Cluster each queue is one primary's work, so N queues carry N primaries' worth.
     */
    deliveryQueues: number;
    /** How often the worker re-dispatches missed events and re-enqueues lost delivery attempts; 0 = never. */
    sweepIntervalMs: number;
    /** How often the worker deletes events and deliveries past the 90-day retention; 0 = never. */
    retentionIntervalMs: number;
    /** Deliveries a webhook replay starts per second at most (per replay), so live traffic keeps its latency. */
    replayRatePerSecond: number;
  };
  /** Keys that seal secrets at rest (webhook signing secrets), the first sealing new values (src/config/keyring.ts). */
  secretsKeyring: Keyring;
  /** Outbound downloads (property pictures): overall time-out and byte cap per download. */
  download: { timeoutMs: number; maxBytes: number };
  /** The legacy batched API (spec 9, docs/legacy.md). */
  legacy: {
    /** From this instant every legacy route answers 410, pending batches fail and the legacy webhook stops. */
    sunsetAt: Date;
    /** The migration guide, linked from every legacy response (Link: <…>; rel="deprecation"). */
    docsUrl: string;
    /** How often the worker picks up batches left unprocessed (lost job, dead worker) and, past the sunset, fails them; 0 = never. */
    sweepIntervalMs: number;
  };
  /** Calendar feeds (iCal import, docs/calendar-feeds.md). */
  calendar: {
    /** How often each feed is synced. */
    syncIntervalMs: number;
    /** How often a worker looks for feeds due a sync (once across workers); 0 = never (tests sync by hand). */
    scanIntervalMs: number;
    /** Largest calendar accepted. */
    maxBytes: number;
    /** Overall time-out of one calendar download. */
    timeoutMs: number;
  };
  reminders: {
    /** How often the worker arms the jobs of reminders coming due and fires those whose job was lost; 0 = never. */
    sweepIntervalMs: number;
  };
  /** Operations: Prometheus metrics, the queue dashboard, graceful shutdown (docs/operations.md). */
  ops: {
    /** Bearer token of GET /metrics (API and worker); null leaves the API's /metrics unmounted. */
    metricsToken: string | null;
    /** Port of the worker's metrics server; null runs none. */
    workerMetricsPort: number | null;
    /** Basic-auth credentials of Bull Board at /admin/queues; null leaves it unmounted. */
    admin: { user: string; password: string } | null;
    /** How long a stopping API lets requests in flight finish before cutting them. */
    shutdownTimeoutMs: number;
  };
}

/** Each delivery queue is a BullMQ worker (and its connections) in every worker process. */
const MAX_DELIVERY_QUEUES = 32;

export const DATABASE_POOLERS = ['transaction', 'session', 'none'] as const;
export type DatabasePooler = (typeof DATABASE_POOLERS)[number];

/** DATABASE_CONNECT_TIMEOUT_MS unless set (also for the migration runner, which has no full config). */
export const DEFAULT_DATABASE_CONNECT_TIMEOUT_MS = 10_000;

const packageVersion = readPackageVersion();

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const e = cleanEnv(
    env,
    {
      NODE_ENV: str({ choices: ['development', 'test', 'production'], default: 'development' }),
      PORT: port({ default: 3000 }),
      DATABASE_URL: postgresUrl({ default: 'postgres://postgres@127.0.0.1:5432/property_ops' }),
      // The safe default: works behind any pooler as well as direct; `none` is the faster direct setting.
      DATABASE_POOLER: str({ choices: DATABASE_POOLERS, default: 'transaction' }),
      DATABASE_CONNECT_TIMEOUT_MS: positiveInt({ default: DEFAULT_DATABASE_CONNECT_TIMEOUT_MS }),
      REDIS_PREFIX: nonEmptyStr({ default: 'pop' }),
      ERRORS_BASE_URL: httpUrl({ default: 'https://errors.property-ops.example/problems' }),
      PUBLIC_BASE_URL: httpUrl({ default: 'http://localhost:3000' }),
      LOG_LEVEL: str({ choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' }),
      CURSOR_SECRET: str({ default: '' }),
      SECRETS_ENCRYPTION_KEY: keyring({ default: undefined }),
      ALLOW_PRIVATE_URLS: bool({ default: false }),
      TEST_HELPERS_ENABLED: bool({ default: false }),
      RATE_LIMIT_PER_SECOND: positiveInt({ default: 50 }),
      RATE_LIMIT_BURST: positiveInt({ default: 100 }),
      RATE_LIMIT_PER_DAY: positiveInt({ default: 30000 }),
      RATE_LIMIT_WINDOW_SECONDS: positiveInt({ default: 1 }),
      RATE_LIMIT_FAILED_AUTH_PER_SECOND: positiveInt({ default: 20 }),
      RATE_LIMIT_FAILED_AUTH_BURST: positiveInt({ default: 100 }),
      TRUST_PROXY: trustProxy({ default: false }),
      IDEMPOTENCY_TTL_HOURS: positiveInt({ default: 24 }),
      BLOB_STORAGE_DIR: nonEmptyStr({ default: './var/blobs' }),
      WEBHOOK_TIMEOUT_MS: positiveInt({ default: 10000 }),
      WEBHOOK_RETRY_BASE_MS: positiveInt({ default: 30000 }),
      WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: positiveInt({ default: 10 }),
      WEBHOOK_DELIVERY_CONCURRENCY: positiveInt({ default: 100 }),
      WEBHOOK_DELIVERY_QUEUES: positiveInt({ default: 1 }),
      WEBHOOK_SWEEP_INTERVAL_MS: nonNegativeInt({ default: 2000 }),
      WEBHOOK_RETENTION_INTERVAL_MS: nonNegativeInt({ default: 3_600_000 }),
      WEBHOOK_REPLAY_RATE_PER_SECOND: positiveInt({ default: 50 }),
      DOWNLOAD_TIMEOUT_MS: positiveInt({ default: 10000 }),
      DOWNLOAD_MAX_BYTES: positiveInt({ default: 10485760 }),
      REMINDER_SWEEP_INTERVAL_MS: nonNegativeInt({ default: 5000 }),
      LEGACY_SUNSET_AT: instant({ default: new Date('2027-04-07T00:00:00Z') }),
      LEGACY_DOCS_URL: httpUrl({ default: 'https://docs.property-ops.example/docs/legacy' }),
      LEGACY_SWEEP_INTERVAL_MS: nonNegativeInt({ default: 2000 }),
      CALENDAR_SYNC_INTERVAL_MS: positiveInt({ default: 900_000 }),
      CALENDAR_SCAN_INTERVAL_MS: nonNegativeInt({ default: 30_000 }),
      CALENDAR_MAX_BYTES: positiveInt({ default: 5 * 1024 * 1024 }),
      CALENDAR_TIMEOUT_MS: positiveInt({ default: 20_000 }),
      METRICS_TOKEN: str({ default: '' }),
      WORKER_METRICS_PORT: nonNegativeInt({ default: 0 }),
      ADMIN_USER: str({ default: '' }),
      ADMIN_PASSWORD: str({ default: '' }),
      SHUTDOWN_TIMEOUT_MS: positiveInt({ default: 10000 }),
    },
    { reporter: throwFirstError },
  );

  const redis = readRedisTarget(env);
  const isProduction = e.NODE_ENV === 'production';
  if (isProduction && e.ALLOW_PRIVATE_URLS) {
    throw new ConfigError('ALLOW_PRIVATE_URLS: must not be true when NODE_ENV=production');
  }
  if (isProduction && e.TEST_HELPERS_ENABLED) {
    throw new ConfigError('TEST_HELPERS_ENABLED: must not be true when NODE_ENV=production');
  }
  if (isProduction && e.CURSOR_SECRET.length < 16) {
    throw new ConfigError('CURSOR_SECRET: must be set to at least 16 characters when NODE_ENV=production');
  }
  const configuredKeyring = e.SECRETS_ENCRYPTION_KEY ?? [];
  if (isProduction && configuredKeyring.length === 0) {
    throw new ConfigError('SECRETS_ENCRYPTION_KEY: must be set when NODE_ENV=production');
  }
  const secretsKeyring = configuredKeyring.length > 0 ? configuredKeyring : DEVELOPMENT_KEYRING;
  if (isProduction && usesDevelopmentKey(secretsKeyring)) {
    throw new ConfigError('SECRETS_ENCRYPTION_KEY: must not list the development key when NODE_ENV=production');
  }
  if (e.RATE_LIMIT_BURST < e.RATE_LIMIT_PER_SECOND) {
    throw new ConfigError(
      `RATE_LIMIT_BURST: must be at least RATE_LIMIT_PER_SECOND (${e.RATE_LIMIT_PER_SECOND}), got ${e.RATE_LIMIT_BURST}`,
    );
  }
  if (e.RATE_LIMIT_FAILED_AUTH_BURST < e.RATE_LIMIT_FAILED_AUTH_PER_SECOND) {
    throw new ConfigError(
      `RATE_LIMIT_FAILED_AUTH_BURST: must be at least RATE_LIMIT_FAILED_AUTH_PER_SECOND (${e.RATE_LIMIT_FAILED_AUTH_PER_SECOND}), got ${e.RATE_LIMIT_FAILED_AUTH_BURST}`,
    );
  }

  if (e.METRICS_TOKEN !== '' && e.METRICS_TOKEN.length < 16) {
    throw new ConfigError('METRICS_TOKEN: must be at least 16 characters when set');
  }
  if ((e.ADMIN_USER === '') !== (e.ADMIN_PASSWORD === '')) {
    throw new ConfigError('ADMIN_PASSWORD: ADMIN_USER and ADMIN_PASSWORD must be set together (or neither)');
  }
  if (e.ADMIN_PASSWORD !== '' && e.ADMIN_PASSWORD.length < 12) {
    throw new ConfigError('ADMIN_PASSWORD: must be at least 12 characters');
  }
  if (e.WEBHOOK_DELIVERY_QUEUES > MAX_DELIVERY_QUEUES)
    throw new ConfigError(`WEBHOOK_DELIVERY_QUEUES: must be at most ${MAX_DELIVERY_QUEUES}, got ${e.WEBHOOK_DELIVERY_QUEUES}`);
  if (e.WORKER_METRICS_PORT > 65535)
    throw new ConfigError(`WORKER_METRICS_PORT: must be a port (1-65535) or 0, got ${e.WORKER_METRICS_PORT}`);

  return Object.freeze({
    nodeEnv: e.NODE_ENV as AppConfig['nodeEnv'],
    isProduction,
    version: packageVersion,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    databasePooler: e.DATABASE_POOLER,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    redis,
    redisPrefix: e.REDIS_PREFIX,
    errorsBaseUrl: e.ERRORS_BASE_URL.replace(/\/+$/, ''),
    publicBaseUrl: e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    cursorSecret: e.CURSOR_SECRET || 'development-cursor-secret',
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    testHelpersEnabled: e.TEST_HELPERS_ENABLED,
    rateLimit: {
      perSecond: e.RATE_LIMIT_PER_SECOND,
      burst: e.RATE_LIMIT_BURST,
      perDay: e.RATE_LIMIT_PER_DAY,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      failedAuth: { perSecond: e.RATE_LIMIT_FAILED_AUTH_PER_SECOND, burst: e.RATE_LIMIT_FAILED_AUTH_BURST },
    },
    trustProxy: e.TRUST_PROXY,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    blobStorageDir: e.BLOB_STORAGE_DIR,
    webhook: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      concurrencyPerSubscription: e.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION,
      deliveryConcurrency: e.WEBHOOK_DELIVERY_CONCURRENCY,
      deliveryQueues: e.WEBHOOK_DELIVERY_QUEUES,
      sweepIntervalMs: e.WEBHOOK_SWEEP_INTERVAL_MS,
      retentionIntervalMs: e.WEBHOOK_RETENTION_INTERVAL_MS,
      replayRatePerSecond: e.WEBHOOK_REPLAY_RATE_PER_SECOND,
    },
    secretsKeyring,
    download: { timeoutMs: e.DOWNLOAD_TIMEOUT_MS, maxBytes: e.DOWNLOAD_MAX_BYTES },
    reminders: { sweepIntervalMs: e.REMINDER_SWEEP_INTERVAL_MS },
    legacy: { sunsetAt: e.LEGACY_SUNSET_AT, docsUrl: e.LEGACY_DOCS_URL, sweepIntervalMs: e.LEGACY_SWEEP_INTERVAL_MS },
    calendar: {
      syncIntervalMs: e.CALENDAR_SYNC_INTERVAL_MS,
      scanIntervalMs: e.CALENDAR_SCAN_INTERVAL_MS,
      maxBytes: e.CALENDAR_MAX_BYTES,
      timeoutMs: e.CALENDAR_TIMEOUT_MS,
    },
    ops: {
      metricsToken: e.METRICS_TOKEN || null,
      workerMetricsPort: e.WORKER_METRICS_PORT || null,
      admin: e.ADMIN_USER ? { user: e.ADMIN_USER, password: e.ADMIN_PASSWORD } : null,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    },
  });
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

function throwFirstError({ errors }: { errors: Partial<Record<string, Error>> }): void {
  const [name, error] = Object.entries(errors)[0] ?? [];
  if (!name || !error) return;
  const reason = error.name === 'EnvMissingError' ? 'is required but missing' : error.message.trim() || 'is invalid';
  // Messages quote the bad value; escape control characters so the report stays on one line.
  const oneLine = reason.replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  throw new ConfigError(`${name}: ${oneLine}`);
}

/** Loads config or ends the process with one line naming the variable that is wrong. */
export function loadConfigOrExit(): AppConfig {
  try {
    readDotEnv({ quiet: true });
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
