import { MemoryCounterStore } from './rate-limit.memory';
import {
  addressBlock,
  BurstyLimit,
  clientAddressKey,
  describeRate,
  giveBackKey,
  KeyDecision,
  KeyLimits,
  rateLimitHeaders,
  retryAfterSeconds,
  takeFailure,
  takeGuarded,
  takeKey,
} from './rate-limit.rules';

const LIMITS: KeyLimits = { perWindow: 3, burstExtra: 2, windowMs: 1000, burstWindowMs: 10_000, perDay: 8, dayMs: 86_400_000 };
const FAILURES: BurstyLimit = { perWindow: 2, burstExtra: 1, windowMs: 1000, burstWindowMs: 10_000 };
const KEY = { window: 'w', burst: 'b', day: 'd' };
const OTHER_KEY = { window: 'w2', burst: 'b2', day: 'd2' };
const ADDRESS = { window: 'fw', burst: 'fb' };

/** A store on a clock the test moves. */
function clocked() {
  let now = 1_000_000;
  const store = new MemoryCounterStore(() => now);
  return { store, advance: (ms: number) => (now += ms) };
}

const outcomes = (decisions: KeyDecision[]) => decisions.map((d) => d.outcome);

describe('key limits', () => {
  it('allows the per-window limit, then the burst allowance, then refuses', () => {
    const { store } = clocked();
    const decisions = Array.from({ length: 7 }, () => takeKey(store, KEY, LIMITS));
    expect(outcomes(decisions)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'rate', 'rate']);
    expect(decisions.map((d) => d.took.burst)).toEqual([false, false, false, true, true, true, true]);
  });

  it('refused requests do not use up the daily quota', () => {
    const { store } = clocked();
    for (let i = 0; i < 7; i++) takeKey(store, KEY, LIMITS);
    expect(store.peek('d').count).toBe(5);
  });

  it('a new window has room again while the burst allowance refills more slowly', () => {
    const { store, advance } = clocked();
    for (let i = 0; i < 6; i++) takeKey(store, KEY, LIMITS);
    advance(1000);
    expect(outcomes(Array.from({ length: 4 }, () => takeKey(store, KEY, LIMITS)))).toEqual(['allowed', 'allowed', 'allowed', 'rate']);
    advance(9000);
    expect(takeKey(store, KEY, LIMITS).outcome).toBe('day'); // the ninth allowed request of the day
  });

  it('refuses past the daily quota, reporting the day window', () => {
    const { store, advance } = clocked();
    const seen: KeyDecision[] = [];
    for (let i = 0; i < 9; i++) {
      seen.push(takeKey(store, KEY, LIMITS));
      advance(10_000);
    }
    expect(seen[7].outcome).toBe('allowed');
    expect(seen[8]).toMatchObject({ outcome: 'day', dayCount: 9, dayMsLeft: 86_400_000 - 80_000 });
  });

  it('without a burst allowance the per-window limit is the whole limit', () => {
    const { store } = clocked();
    const limits = { ...LIMITS, burstExtra: 0 };
    expect(outcomes(Array.from({ length: 4 }, () => takeKey(store, KEY, limits)))).toEqual(['allowed', 'allowed', 'allowed', 'rate']);
  });

  it('counts each key on its own', () => {
    const { store } = clocked();
    for (let i = 0; i < 6; i++) takeKey(store, KEY, LIMITS);
    expect(takeKey(store, OTHER_KEY, LIMITS)).toMatchObject({ outcome: 'allowed', windowCount: 1 });
  });

  it('gives back exactly what a request took, removing counters that reach zero', () => {
    const { store } = clocked();
    const first = takeKey(store, KEY, LIMITS);
    giveBackKey(store, KEY, first.took);
    expect(store.size).toBe(0);
    for (let i = 0; i < 3; i++) takeKey(store, KEY, LIMITS);
    const burst = takeKey(store, KEY, LIMITS);
    giveBackKey(store, KEY, burst.took);
    expect([store.peek('w').count, store.peek('b').count, store.peek('d').count]).toEqual([3, 0, 3]);
  });
});

describe('failed authentications per address', () => {
  it('allows the limit and its burst, then refuses until the window ends', () => {
    const { store, advance } = clocked();
    const allowed = Array.from({ length: 4 }, () => takeFailure(store, ADDRESS, FAILURES).allowed);
    expect(allowed).toEqual([true, true, true, false]);
    expect(addressBlock(store, ADDRESS, FAILURES)).toEqual({ blocked: true, msLeft: 1000 });
    advance(1000);
    expect(addressBlock(store, ADDRESS, FAILURES).blocked).toBe(false);
    expect(takeFailure(store, ADDRESS, FAILURES).allowed).toBe(true);
  });

  it('a blocked address is refused without counting, unless the key was allowed today', () => {
    const { store } = clocked();
    takeKey(store, KEY, LIMITS); // a key that authenticated earlier today
    for (let i = 0; i < 4; i++) takeFailure(store, ADDRESS, FAILURES);
    const guessed = takeGuarded(store, OTHER_KEY, ADDRESS, LIMITS, FAILURES);
    expect(guessed).toMatchObject({ outcome: 'addressBlocked', windowMsLeft: 1000, took: { burst: false, day: false } });
    expect(store.peek('w2').count).toBe(0);
    expect(takeGuarded(store, KEY, ADDRESS, LIMITS, FAILURES)).toMatchObject({ outcome: 'allowed', windowCount: 2 });
  });

  it('an address that is not blocked is counted as takeKey counts', () => {
    const { store } = clocked();
    expect(takeGuarded(store, OTHER_KEY, ADDRESS, LIMITS, FAILURES)).toMatchObject({ outcome: 'allowed', windowCount: 1 });
  });
});

describe('the in-memory store', () => {
  it('sweeps expired counters out as time passes', () => {
    const { store, advance } = clocked();
    for (let i = 0; i < 50; i++) store.hit(`k${i}`, 1000);
    advance(20_000);
    store.hit('fresh', 1000);
    expect(store.size).toBe(1);
  });
});

describe('rate limit headers', () => {
  const decision = (over: Partial<KeyDecision>): KeyDecision => ({
    outcome: 'allowed',
    windowCount: 1,
    windowMsLeft: 400,
    dayCount: 1,
    dayMsLeft: 3_600_500,
    took: { burst: false, day: true },
    ...over,
  });
  const limits: KeyLimits = { ...LIMITS, perWindow: 100, burstExtra: 100, perDay: 30000 };

  it('describes the short window and both policies', () => {
    const headers = rateLimitHeaders(decision({ windowCount: 58, dayCount: 1000 }), limits);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '1',
      'RateLimit-Policy': '"burst";q=100;w=1, "daily";q=30000;w=86400',
      RateLimit: '"burst";r=42;t=1, "daily";r=29000;t=3601',
    });
  });

  it('never reports negative remaining requests, and names a longer window', () => {
    const headers = rateLimitHeaders(decision({ windowCount: 103, dayCount: 30001, windowMsLeft: 0, dayMsLeft: 0 }), {
      ...limits,
      windowMs: 60_000,
    });
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers.RateLimit).toBe('"burst";r=0;t=0, "daily";r=0;t=0');
    expect(headers['RateLimit-Policy']).toBe('"burst";q=100;w=60, "daily";q=30000;w=86400');
  });

  it('asks clients to wait at least one second', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });

  it('words the rate for one second and for longer windows', () => {
    expect(describeRate(3, 1000)).toBe('3 requests per second');
    expect(describeRate(3, 60_000)).toBe('3 requests per 60 seconds');
  });
});

describe('client address key', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
    ['not an address', 'unknown'],
  ])('%s counts as %s', (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });
});
