import request from 'supertest';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';

const LOW_LIMITS = { RATE_LIMIT_PER_SECOND: '3', RATE_LIMIT_BURST: '5', RATE_LIMIT_PER_DAY: '8' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fires `count` requests at once; the limiter counts atomically in Redis, so only the totals are deterministic. */
async function burst(t: TestApp, account: TestAccount, count: number): Promise<request.Response[]> {
  return Promise.all(Array.from({ length: count }, () => clientFor(t, account).get('/v1/events')));
}

const statuses = (responses: request.Response[]) => responses.map((r) => r.status).sort();

describe('per-key rate limits (spec 8)', () => {
  let t: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    [t, second] = await Promise.all([startApp(LOW_LIMITS), startApp(LOW_LIMITS)]);
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
      'ratelimit-policy': '"burst";q=3;w=1, "daily";q=8;w=86400',
    });
    expect(['0', '1']).toContain(first.headers['x-ratelimit-reset']);
    expect(first.headers.ratelimit).toMatch(/^"burst";r=2;t=[01], "daily";r=7;t=(86400|86399)$/);

    // A validation error still counts and still carries the headers.
    const invalid = await api.get('/v1/events?limit=0').expect(400);
    expectProblem(invalid, 400, 'validationFailed');
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
    expect(invalid.headers.ratelimit).toMatch(/^"burst";r=1;t=[01], "daily";r=6;t=\d+$/);
  });

  it('answers past the per-second limit and its burst with 429 rate_limited and Retry-After', async () => {
    const account = await createAccount(t);
    const responses = await burst(t, account, 7);
    expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429, 429]);

    const limited = responses.find((r) => r.status === 429)!;
    const problem = expectProblem(limited, 429, 'rate_limited', '/v1/events');
    expect(problem.title).toBe('Too many requests');
    expect(problem.detail).toContain('3 requests per second');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(1);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-policy']).toBeDefined();

    // After Retry-After the per-second window has room again (the burst allowance refills over 10 s).
    await sleep(retryAfter * 1000 + 50);
    const again = await clientFor(t, account).get('/v1/events').expect(200);
    // Refused requests did not use up the daily quota: 5 + this one.
    expect(again.headers.ratelimit).toMatch(/"daily";r=2;/);
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
});

describe('daily quota', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A per-second limit equal to the burst (no burst allowance) and a tiny day.
    t = await startApp({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '20', RATE_LIMIT_PER_DAY: '3' });
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
    expect(limited.headers['ratelimit-policy']).toBe('"burst";q=20;w=1, "daily";q=3;w=86400');

    // Another key is unaffected.
    await clientFor(t, await createAccount(t))
      .get('/v1/events')
      .expect(200);
  });
});
