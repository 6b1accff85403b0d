import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { AuthService } from '../../src/modules/auth/auth.service';
import { clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { startPrivateRedis } from '../support/private-services';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';

/*
 * Counts inside a window are only deterministic if the window cannot end during the test,
 * so the apps here use a "per second" window of an hour (RATE_LIMIT_WINDOW_SECONDS); the
 * one test about a window ending uses short windows and polls instead of counting.
 */
const HOUR_WINDOW = { RATE_LIMIT_WINDOW_SECONDS: '3600' };
/** Each group of apps counts under a Redis prefix of its own (the run's teardown drops them), so windows of different lengths never share a counter. */
const prefix = (name: string) => ({ REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-rate-limit-${name}` });
const LOW_LIMITS = { ...HOUR_WINDOW, RATE_LIMIT_PER_SECOND: '3', RATE_LIMIT_BURST: '5', RATE_LIMIT_PER_DAY: '8' };

/** Fires `count` requests at once; the limiter counts atomically, so the totals are deterministic. */
async function burst(t: TestApp, account: Pick<TestAccount, 'apiKey'>, count: number): Promise<request.Response[]> {
  return Promise.all(Array.from({ length: count }, () => clientFor(t, account).get('/v1/events')));
}

const statuses = (responses: request.Response[]) => responses.map((r) => r.status).sort();
const dailyRemaining = (res: request.Response) => Number(/"daily";r=(\d+)/.exec(res.headers.ratelimit)?.[1]);
const guessedKey = () => `popk_${randomBytes(32).toString('base64url')}`;

describe('per-key rate limits (spec 8)', () => {
  let t: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    [t, second] = await Promise.all([startApp({ ...LOW_LIMITS, ...prefix('keys') }), startApp({ ...LOW_LIMITS, ...prefix('keys') })]);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), second?.close()]);
  });

  it('describes both policies on every authenticated response, errors included', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const first = await api.get('/v1/events').expect(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'ratelimit-policy': '"burst";q=3;w=3600, "daily";q=8;w=86400',
    });
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(3600);
    expect(first.headers.ratelimit).toMatch(/^"burst";r=2;t=\d+, "daily";r=7;t=(86400|86399)$/);

    // A validation error still counts and still carries the headers.
    const invalid = await api.get('/v1/events?limit=0').expect(400);
    expectProblem(invalid, 400, 'validationFailed');
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
    expect(invalid.headers.ratelimit).toMatch(/^"burst";r=1;t=\d+, "daily";r=6;t=\d+$/);
  });

  it('answers past the per-second limit and its burst with 429 rate_limited and Retry-After', async () => {
    const account = await createAccount(t);
    const responses = await burst(t, account, 7);
    expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429, 429]);

    const limited = responses.find((r) => r.status === 429)!;
    const problem = expectProblem(limited, 429, 'rate_limited', '/v1/events');
    expect(problem.title).toBe('Too many requests');
    expect(problem.detail).toContain('3 requests per 3600 seconds (burst 5)');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-policy']).toBeDefined();
    // Refused requests did not use up the daily quota: 8 - 5.
    expect(dailyRemaining(limited)).toBe(3);
  });

  it('limits each key on its own, even two keys of one account', async () => {
    const account = await createAccount(t);
    const sibling = await t.app.get(AccountsService).issueKey(account.accountId, 'platform');
    const stranger = await createAccount(t);
    expect(statuses(await burst(t, account, 6))).toEqual([200, 200, 200, 200, 200, 429]);

    const res = await clientFor(t, sibling).get('/v1/events').expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
    await clientFor(t, stranger).get('/v1/events').expect(200);
    await clientFor(t, account).get('/v1/events').expect(429);
  });

  it('shares each key’s limit between API processes through Redis', async () => {
    const account = await createAccount(t);
    const [a, b] = await Promise.all([burst(t, account, 3), burst(second, account, 3)]);
    expect(statuses([...a, ...b])).toEqual([200, 200, 200, 200, 200, 429]);
    await clientFor(t, account).get('/v1/events').expect(429);
    await clientFor(second, account).get('/v1/events').expect(429);
  });

  it('does not limit the public health check, nor send limit headers on it', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await t.http.get('/v1/health').expect(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('sends no limit headers on 401, where no key is known', async () => {
    const res = await t.http.get('/v1/events').expect(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('does not count requests that authentication refuses (403) against the key', async () => {
    const account = await createAccount(t, { active: false });
    const refused = await burst(t, account, 6);
    expect(statuses(refused)).toEqual(Array(6).fill(403));
    expect(refused[0].headers['x-ratelimit-limit']).toBeUndefined();
    await t.app.get(AccountsService).setSubscriptionStatus(account.accountId, 'active');
    const first = await clientFor(t, account).get('/v1/events').expect(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    expect(dailyRemaining(first)).toBe(7);
  });
});

describe('a window that ends', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      RATE_LIMIT_PER_SECOND: '3',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_DAY: '1000',
      RATE_LIMIT_WINDOW_SECONDS: '1',
      ...prefix('window'),
    });
  });
  afterAll(() => t?.close());

  it('has room again once Retry-After has passed, and refused requests never used up the day', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    let allowed = 0;
    // Until the first refusal (however the windows fall), then until the next success.
    const refused = await waitUntil(
      async () => {
        const res = await api.get('/v1/events');
        if (res.status === 200) allowed++;
        return res.status === 429 ? res : undefined;
      },
      20_000,
      'a 429',
      0,
    );
    expect(Number(refused.headers['retry-after'])).toBe(1);
    const again = await waitUntil(
      async () => {
        const res = await api.get('/v1/events');
        return res.status === 200 ? res : undefined;
      },
      20_000,
      'room in a new window',
    );
    expect(dailyRemaining(again)).toBe(1000 - allowed - 1);
  });
});

describe('daily quota', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A per-second limit equal to the burst (no burst allowance) and a tiny day.
    t = await startApp({ ...HOUR_WINDOW, RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '20', RATE_LIMIT_PER_DAY: '3', ...prefix('day') });
  });
  afterAll(() => t?.close());

  it('answers past the daily quota with 429 and a Retry-After of hours, per key', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) remaining.push((await api.get('/v1/events').expect(200)).headers.ratelimit);
    expect(remaining.map((h) => /"daily";r=(\d+)/.exec(h)?.[1])).toEqual(['2', '1', '0']);

    const limited = await api.get('/v1/events').expect(429);
    const problem = expectProblem(limited, 429, 'rate_limited', '/v1/events');
    expect(problem.detail).toContain('3 requests per day');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(86_400 - 60);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(limited.headers.ratelimit).toMatch(/"daily";r=0;t=\d+$/);
    expect(limited.headers['ratelimit-policy']).toBe('"burst";q=20;w=3600, "daily";q=3;w=86400');

    // Another key is unaffected.
    await clientFor(t, await createAccount(t))
      .get('/v1/events')
      .expect(200);
  });
});

describe('failed authentications per client address', () => {
  let t: TestApp;
  const FLOODER = '198.51.100.7';

  beforeAll(async () => {
    // Behind one trusted proxy (the test client on loopback), X-Forwarded-For names the client.
    t = await startApp({
      ...HOUR_WINDOW,
      ...prefix('failures'),
      RATE_LIMIT_FAILED_AUTH_PER_SECOND: '5',
      RATE_LIMIT_FAILED_AUTH_BURST: '10',
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(() => t?.close());

  const from = (address: string, key?: string) => {
    const req = t.http.get('/v1/events').set('x-forwarded-for', address);
    return key === undefined ? req : req.set('x-api-key', key);
  };

  it('answers a flood of guessed keys with 429 past the limit, then without a database read', async () => {
    const regular = await createAccount(t);
    await clientFor(t, regular).get('/v1/events').set('x-forwarded-for', FLOODER).expect(200);

    const flood = await Promise.all(Array.from({ length: 30 }, () => from(FLOODER, guessedKey())));
    expect(flood.filter((r) => r.status === 401)).toHaveLength(10);
    expect(flood.filter((r) => r.status === 429)).toHaveLength(20);
    const limited = flood.find((r) => r.status === 429)!;
    const problem = expectProblem(limited, 429, 'rate_limited', '/v1/events');
    expect(problem.detail).toContain('missing or invalid x-api-key');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['x-ratelimit-limit']).toBeUndefined();

    // Now that the address is known to be blocked, guessed keys and missing keys cost no key lookup.
    const lookups = jest.spyOn(t.app.get(AuthService), 'findKey');
    try {
      const more = await Promise.all([...Array.from({ length: 20 }, () => from(FLOODER, guessedKey())), from(FLOODER)]);
      expect(statuses(more)).toEqual(Array(21).fill(429));
      expect(lookups).not.toHaveBeenCalled();

      // A key that has authenticated today is still served from that address, and is still looked up.
      const served = await clientFor(t, regular).get('/v1/events').set('x-forwarded-for', FLOODER).expect(200);
      expect(served.headers['x-ratelimit-limit']).toBeDefined();
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it('counts each address on its own', async () => {
    const address = '203.0.113.9';
    for (let i = 0; i < 10; i++) await from(address, guessedKey()).expect(401);
    await from(address).expect(429);
    await from('203.0.113.10').expect(401);
    await from('2001:db8:aa:bb::1', guessedKey()).expect(401);
  });

  it('counts a missing key as a failure too', async () => {
    const address = '192.0.2.44';
    const statusesSeen = [];
    for (let i = 0; i < 11; i++) statusesSeen.push((await from(address)).status);
    expect(statusesSeen).toEqual([...Array(10).fill(401), 429]);
  });
});

describe('rate limits while Redis is unreachable', () => {
  it('fall back to counters in each process’s memory, with the same limits and headers', async () => {
    const redis = await startPrivateRedis();
    const t = await startApp({ ...LOW_LIMITS, REDIS_URL: redis.url });
    try {
      const account = await createAccount(t);
      await clientFor(t, account).get('/v1/events').expect(200);
      await redis.stop();

      // Once the process sees the connection gone, each request is counted in memory.
      const fresh = await createAccount(t);
      const responses = await burst(t, fresh, 7);
      expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const limited = responses.find((r) => r.status === 429)!;
      expect(limited.headers['ratelimit-policy']).toBe('"burst";q=3;w=3600, "daily";q=8;w=86400');
      expect(dailyRemaining(limited)).toBe(3);
    } finally {
      await t.close();
      await redis.stop();
    }
  });
});
