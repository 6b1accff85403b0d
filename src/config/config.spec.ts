import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { version as packageVersion } from '../../package.json';
import { ConfigError, loadConfig } from './config';
import { DEVELOPMENT_KEYRING } from './keyring';

/** Runs loadConfig and returns the ConfigError it throws. */
function configErrorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

const PRODUCTION_KEY = Buffer.alloc(32, 9).toString('base64');
const PRODUCTION = {
  NODE_ENV: 'production',
  CURSOR_SECRET: 'a-production-secret-of-32-chars!',
  SECRETS_ENCRYPTION_KEY: `prod1:${PRODUCTION_KEY}`,
};

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      isProduction: false,
      version: packageVersion,
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/property_ops',
      databasePooler: 'transaction',
      databaseConnectTimeoutMs: 10000,
      redis: { mode: 'single', url: 'redis://127.0.0.1:6379' },
      redisPrefix: 'pop',
      errorsBaseUrl: 'https://errors.property-ops.example/problems',
      publicBaseUrl: 'http://localhost:3000',
      logLevel: 'info',
      allowPrivateUrls: false,
      rateLimit: { perSecond: 50, burst: 100, perDay: 30000 },
      idempotencyTtlHours: 24,
      blobStorageDir: './var/blobs',
      webhook: expect.objectContaining({ timeoutMs: 10000, retryBaseMs: 30000, concurrencyPerSubscription: 10 }),
    });
    // Outside production a fixed development secret signs cursors and a fixed development key seals secrets.
    expect(config.cursorSecret.length).toBeGreaterThan(0);
    expect(config.secretsKeyring).toEqual(DEVELOPMENT_KEYRING);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads and converts every value it is given', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '8080',
      DATABASE_URL: 'postgresql://app:pw@db.internal:5433/ops',
      REDIS_URL: 'rediss://cache.internal:6380/2',
      REDIS_PREFIX: 'ops',
      ERRORS_BASE_URL: 'https://errors.example.com/p///',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      LOG_LEVEL: 'debug',
      CURSOR_SECRET: 'x',
      ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_SECOND: '5',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_DAY: '10',
      IDEMPOTENCY_TTL_HOURS: '48',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_BASE_MS: '200',
    });
    expect(config).toMatchObject({
      nodeEnv: 'test',
      isProduction: false,
      port: 8080,
      databaseUrl: 'postgresql://app:pw@db.internal:5433/ops',
      redis: { mode: 'single', url: 'rediss://cache.internal:6380/2' },
      redisPrefix: 'ops',
      errorsBaseUrl: 'https://errors.example.com/p',
      publicBaseUrl: 'https://api.example.com',
      logLevel: 'debug',
      cursorSecret: 'x',
      allowPrivateUrls: true,
      rateLimit: { perSecond: 5, burst: 5, perDay: 10 },
      idempotencyTtlHours: 48,
      webhook: expect.objectContaining({ timeoutMs: 2000, retryBaseMs: 200 }),
    });
  });

  it.each(['transaction', 'session', 'none'] as const)('reads DATABASE_POOLER=%s', (pooler) => {
    expect(loadConfig({ DATABASE_POOLER: pooler }).databasePooler).toBe(pooler);
  });

  it.each([
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '5s'],
    ['PORT', 'abc'],
    ['PORT', '0'],
    ['PORT', '65536'],
    ['PORT', '1.5'],
    ['PORT', ''],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://localhost/ops'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_POOLER', 'pgbouncer'],
    ['DATABASE_POOLER', 'Transaction'],
    ['DATABASE_POOLER', ''],
    ['REDIS_URL', 'http://localhost:6379'],
    ['ERRORS_BASE_URL', 'not a url'],
    ['PUBLIC_BASE_URL', 'localhost:3000'],
    ['LOG_LEVEL', 'loud'],
    ['ALLOW_PRIVATE_URLS', 'maybe'],
    ['TEST_HELPERS_ENABLED', 'yes please'],
    ['RATE_LIMIT_PER_SECOND', '0'],
    ['RATE_LIMIT_PER_SECOND', '-5'],
    ['RATE_LIMIT_PER_SECOND', '2.5'],
    ['RATE_LIMIT_PER_SECOND', 'fifty'],
    ['RATE_LIMIT_PER_SECOND', '1e3'],
    ['RATE_LIMIT_BURST', '0'],
    ['RATE_LIMIT_PER_DAY', 'abc'],
    ['RATE_LIMIT_PER_DAY', '99999999999999999999'],
    ['IDEMPOTENCY_TTL_HOURS', '0'],
    ['WEBHOOK_TIMEOUT_MS', '-1'],
    ['WEBHOOK_RETRY_BASE_MS', 'soon'],
    ['WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', '0'],
    ['WEBHOOK_SWEEP_INTERVAL_MS', '-1'],
    ['WEBHOOK_RETENTION_INTERVAL_MS', '1.5'],
    ['SECRETS_ENCRYPTION_KEY', 'k1:tooshort'],
    ['SECRETS_ENCRYPTION_KEY', 'nokeyid'],
    ['REDIS_PREFIX', ''],
    ['REDIS_PREFIX', '  '],
    ['BLOB_STORAGE_DIR', ''],
    ['LEGACY_SUNSET_AT', '2027-04-07'],
    ['LEGACY_SUNSET_AT', '2027-04-07T00:00:00'],
    ['LEGACY_SUNSET_AT', 'soon'],
    ['LEGACY_DOCS_URL', 'docs/legacy'],
    ['LEGACY_SWEEP_INTERVAL_MS', '-1'],
  ])('refuses %s=%p with one line naming the variable', (name, value) => {
    const error = configErrorOf({ [name]: value });
    expect(error.message).toMatch(new RegExp(`^${name}: \\S`));
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it('reads the legacy API settings, the sunset as an instant with its offset', () => {
    expect(loadConfig({}).legacy).toEqual({
      sunsetAt: new Date('2027-04-07T00:00:00Z'),
      docsUrl: 'https://docs.property-ops.example/docs/legacy',
      sweepIntervalMs: 2000,
    });
    const set = loadConfig({
      LEGACY_SUNSET_AT: '2027-04-07T02:00:00+02:00',
      LEGACY_DOCS_URL: 'https://x.example/l',
      LEGACY_SWEEP_INTERVAL_MS: '0',
    });
    expect(set.legacy).toEqual({ sunsetAt: new Date('2027-04-07T00:00:00Z'), docsUrl: 'https://x.example/l', sweepIntervalMs: 0 });
  });

  describe('Redis: one server, Sentinel or a Cluster', () => {
    it('treats an empty REDIS_URL as not set (the default server)', () => {
      expect(loadConfig({ REDIS_URL: '' }).redis).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379' });
      expect(loadConfig({ REDIS_URL: '', REDIS_SENTINELS: '', REDIS_CLUSTER_NODES: ' ' }).redis.mode).toBe('single');
    });

    it('reads sentinels (IPv6 in brackets, port 26379 when omitted), the primary name and the passwords', () => {
      const config = loadConfig({
        REDIS_SENTINELS: 'sentinel-a:26380, sentinel-b ,[::1]:26381,[fe80::1]',
        REDIS_SENTINEL_NAME: 'mymaster',
        REDIS_SENTINEL_PASSWORD: 's3cret',
        REDIS_USERNAME: 'app',
        REDIS_PASSWORD: 'p@ss',
      });
      expect(config.redis).toEqual({
        mode: 'sentinel',
        sentinels: [
          { host: 'sentinel-a', port: 26380 },
          { host: 'sentinel-b', port: 26379 },
          { host: '::1', port: 26381 },
          { host: 'fe80::1', port: 26379 },
        ],
        name: 'mymaster',
        sentinelPassword: 's3cret',
        auth: { username: 'app', password: 'p@ss', tls: false },
      });
    });

    it('reads cluster seeds (port 6379 when omitted) and TLS with a private CA', () => {
      const dir = mkdtempSync(join(tmpdir(), 'redis-ca-'));
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
      const config = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1,10.0.0.2:7001', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: caFile });
      expect(config.redis).toEqual({
        mode: 'cluster',
        nodes: [
          { host: '10.0.0.1', port: 6379 },
          { host: '10.0.0.2', port: 7001 },
        ],
        auth: { tls: true, ca: readFileSync(caFile, 'utf8') },
      });
      expect(loadConfig({ REDIS_CLUSTER_NODES: 'a', REDIS_TLS: 'true' }).redis).toMatchObject({ auth: { tls: true } });
    });

    it.each([
      [{ REDIS_URL: 'redis://a', REDIS_SENTINELS: 'b' }, /^REDIS_URL and REDIS_SENTINELS: /],
      [{ REDIS_URL: 'redis://a', REDIS_CLUSTER_NODES: 'b' }, /^REDIS_URL and REDIS_CLUSTER_NODES: /],
      [{ REDIS_SENTINELS: 'a', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'b' }, /^REDIS_SENTINELS and REDIS_CLUSTER_NODES: /],
    ])('refuses two of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES at once, naming both (%p)', (env, message) => {
      expect(configErrorOf(env).message).toMatch(message);
    });

    it.each([
      [{ REDIS_SENTINELS: 'a:26379' }, /^REDIS_SENTINEL_NAME: is required/],
      [{ REDIS_SENTINELS: 'a:port', REDIS_SENTINEL_NAME: 'm' }, /^REDIS_SENTINELS: "a:port" is not host:port/],
      [{ REDIS_SENTINELS: 'a,,b', REDIS_SENTINEL_NAME: 'm' }, /^REDIS_SENTINELS: an empty entry/],
      [{ REDIS_CLUSTER_NODES: 'a:70000' }, /^REDIS_CLUSTER_NODES: "a:70000" is not host:port/],
      [{ REDIS_CLUSTER_NODES: '::1:7000' }, /^REDIS_CLUSTER_NODES: "::1:7000" is not host:port \(an IPv6 address as \[addr\]:port\)/],
      [{ REDIS_CLUSTER_NODES: 'a', REDIS_TLS: 'yes' }, /^REDIS_TLS: must be true or false/],
      [{ REDIS_CLUSTER_NODES: 'a', REDIS_TLS_CA_FILE: '/nowhere/ca.pem' }, /^REDIS_TLS_CA_FILE: applies only with REDIS_TLS=true/],
      [
        { REDIS_CLUSTER_NODES: 'a', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: '/nowhere/ca.pem' },
        /^REDIS_TLS_CA_FILE: cannot read "\/nowhere\/ca.pem" \(ENOENT\)/,
      ],
      [{ REDIS_PASSWORD: 'pw' }, /^REDIS_PASSWORD: applies with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL put it in the URL/],
      [{ REDIS_CLUSTER_NODES: 'a', REDIS_SENTINEL_NAME: 'm' }, /^REDIS_SENTINEL_NAME: applies only with REDIS_SENTINELS/],
    ])('refuses %p', (env, message) => {
      const error = configErrorOf(env);
      expect(error.message).toMatch(message);
      expect(error.message).not.toMatch(/[\r\n]/);
    });

    it('never prints the Redis or Sentinel password, and keeps a bad host on one line', () => {
      expect(configErrorOf({ REDIS_SENTINELS: 'a', REDIS_SENTINEL_PASSWORD: 'hunter2' }).message).not.toContain('hunter2');
      expect(configErrorOf({ REDIS_CLUSTER_NODES: 'a\nINJECTED: b' }).message).not.toMatch(/[\r\n]/);
    });
  });

  it('keeps the report on one line even when the value holds a newline', () => {
    const error = configErrorOf({ PORT: '3000\nINJECTED: line' });
    expect(error.message).toMatch(/^PORT: /);
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('reports only the first bad variable', () => {
    const error = configErrorOf({ PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(error.message).toMatch(/^PORT: /);
    expect(error.message).not.toContain('LOG_LEVEL');
  });

  it('never prints a database or Redis password', () => {
    expect(configErrorOf({ DATABASE_URL: 'mysql://app:hunter2@db/ops' }).message).not.toContain('hunter2');
    expect(configErrorOf({ REDIS_URL: 'http://default:hunter2@cache:6379' }).message).not.toContain('hunter2');
  });

  it('refuses a burst below the per-second limit, and accepts an equal one', () => {
    expect(configErrorOf({ RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '9' }).message).toMatch(/^RATE_LIMIT_BURST: /);
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '10' }).rateLimit).toEqual({
      perSecond: 10,
      burst: 10,
      perDay: 30000,
      windowSeconds: 1,
      failedAuth: { perSecond: 20, burst: 100 },
    });
  });

  it('reads the failed-authentication limit and refuses a burst below it', () => {
    const env = { RATE_LIMIT_FAILED_AUTH_PER_SECOND: '5', RATE_LIMIT_FAILED_AUTH_BURST: '7', RATE_LIMIT_WINDOW_SECONDS: '60' };
    expect(loadConfig(env).rateLimit).toMatchObject({ windowSeconds: 60, failedAuth: { perSecond: 5, burst: 7 } });
    expect(configErrorOf({ ...env, RATE_LIMIT_FAILED_AUTH_BURST: '4' }).message).toMatch(/^RATE_LIMIT_FAILED_AUTH_BURST: /);
  });

  it.each([
    ['', false],
    ['false', false],
    ['1', 1],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.0.2.7,::1', ['10.0.0.0/8', '192.0.2.7', '::1']],
  ])('reads TRUST_PROXY=%j as %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('refuses TRUST_PROXY=true, which would let every client choose its own address', () => {
    expect(configErrorOf({ TRUST_PROXY: 'true' }).message).toMatch(/^TRUST_PROXY: must not be true/);
    expect(configErrorOf({ TRUST_PROXY: 'proxy.example' }).message).toMatch(/^TRUST_PROXY: /);
  });

  describe('in production', () => {
    it('starts with a cursor secret of at least 16 characters', () => {
      const config = loadConfig(PRODUCTION);
      expect(config).toMatchObject({
        nodeEnv: 'production',
        isProduction: true,
        cursorSecret: PRODUCTION.CURSOR_SECRET,
        allowPrivateUrls: false,
      });
      expect(loadConfig({ ...PRODUCTION, CURSOR_SECRET: 's'.repeat(16) }).cursorSecret).toBe('s'.repeat(16));
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['15 characters', 's'.repeat(15)],
    ])('requires CURSOR_SECRET (%s)', (_label, secret) => {
      const env: NodeJS.ProcessEnv = { NODE_ENV: 'production' };
      if (secret !== undefined) env.CURSOR_SECRET = secret;
      const error = configErrorOf(env);
      expect(error.message).toMatch(/^CURSOR_SECRET: /);
      expect(error.message).not.toMatch(/[\r\n]/);
    });

    it('requires SECRETS_ENCRYPTION_KEY, and refuses the development key', () => {
      const { SECRETS_ENCRYPTION_KEY: _, ...withoutKey } = PRODUCTION;
      expect(configErrorOf(withoutKey).message).toBe('SECRETS_ENCRYPTION_KEY: must be set when NODE_ENV=production');
      expect(configErrorOf({ ...withoutKey, SECRETS_ENCRYPTION_KEY: ' ' }).message).toBe(
        'SECRETS_ENCRYPTION_KEY: must be set when NODE_ENV=production',
      );
      expect(loadConfig({ NODE_ENV: 'development', SECRETS_ENCRYPTION_KEY: '' }).secretsKeyring).toEqual(DEVELOPMENT_KEYRING);
      const dev = DEVELOPMENT_KEYRING[0].key.toString('base64');
      expect(configErrorOf({ ...PRODUCTION, SECRETS_ENCRYPTION_KEY: `k2:${PRODUCTION_KEY.replace('C', 'D')},dev:${dev}` }).message).toMatch(
        /^SECRETS_ENCRYPTION_KEY: /,
      );
      expect(loadConfig(PRODUCTION).secretsKeyring.map((entry) => entry.id)).toEqual(['prod1']);
    });

    it('refuses ALLOW_PRIVATE_URLS=true', () => {
      const error = configErrorOf({ ...PRODUCTION, ALLOW_PRIVATE_URLS: 'true' });
      expect(error.message).toMatch(/^ALLOW_PRIVATE_URLS: /);
      expect(loadConfig({ ...PRODUCTION, ALLOW_PRIVATE_URLS: 'false' }).allowPrivateUrls).toBe(false);
    });

    it('refuses TEST_HELPERS_ENABLED=true', () => {
      const error = configErrorOf({ ...PRODUCTION, TEST_HELPERS_ENABLED: 'true' });
      expect(error.message).toBe('TEST_HELPERS_ENABLED: must not be true when NODE_ENV=production');
      expect(loadConfig({ ...PRODUCTION, TEST_HELPERS_ENABLED: 'false' }).testHelpersEnabled).toBe(false);
    });

    it('allows TEST_HELPERS_ENABLED=true outside production; off by default', () => {
      expect(loadConfig({ NODE_ENV: 'development', TEST_HELPERS_ENABLED: 'true' }).testHelpersEnabled).toBe(true);
      expect(loadConfig({ NODE_ENV: 'test', TEST_HELPERS_ENABLED: 'true' }).testHelpersEnabled).toBe(true);
      expect(loadConfig({ NODE_ENV: 'development' }).testHelpersEnabled).toBe(false);
    });

    it('allows ALLOW_PRIVATE_URLS=true outside production', () => {
      expect(loadConfig({ NODE_ENV: 'development', ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls).toBe(true);
      expect(loadConfig({ NODE_ENV: 'test', ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls).toBe(true);
    });
  });
});
