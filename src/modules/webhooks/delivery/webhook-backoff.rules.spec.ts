import {
  clampRetryAfter,
  failureCounterEffect,
  nextDeliveryState,
  parseRetryAfter,
  RETRY_AFTER_MAX_MS,
  retryDelayMs,
} from './webhook-backoff.rules';

const now = new Date('2026-01-01T00:00:00.000Z');
const base = 30_000;

/** Simulates a delivery whose every attempt fails: the states after each attempt. */
function failAll(maxRetries: number) {
  const states = [];
  for (let attemptCount = 1; ; attemptCount++) {
    const state = nextDeliveryState({ outcome: 'failed', attemptCount, maxRetries, retryBaseMs: base, now });
    states.push(state);
    if (state.status !== 'pending') return states;
    if (attemptCount > 20) throw new Error('never ends');
  }
}

describe('retryDelayMs', () => {
  it('doubles from the base: base × 2^(n-1)', () => {
    expect([1, 2, 3, 4, 5, 10].map((n) => retryDelayMs(base, n))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 15_360_000]);
    expect(retryDelayMs(200, 1)).toBe(200);
    expect(retryDelayMs(200, 3)).toBe(800);
  });
  it('refuses retry numbers below 1 or fractional', () => {
    expect(() => retryDelayMs(base, 0)).toThrow();
    expect(() => retryDelayMs(base, -1)).toThrow();
    expect(() => retryDelayMs(base, 1.5)).toThrow();
  });
});

describe('nextDeliveryState', () => {
  it('delivers on ok whatever the attempt number', () => {
    for (const attemptCount of [1, 3, 11]) {
      expect(nextDeliveryState({ outcome: 'ok', attemptCount, maxRetries: 5, retryBaseMs: base, now })).toEqual({
        status: 'delivered',
        nextRetryAt: null,
      });
    }
  });

  it('maxRetries 0: one attempt, then failed_permanent', () => {
    const states = failAll(0);
    expect(states).toEqual([{ status: 'failed_permanent', nextRetryAt: null }]);
  });

  it('maxRetries 5 (default): 6 attempts in total with doubling delays', () => {
    const states = failAll(5);
    expect(states).toHaveLength(6);
    expect(states.slice(0, 5).map((s) => (s.status === 'pending' ? [s.retryNumber, s.delayMs, s.nextRetryAt.toISOString()] : s))).toEqual([
      [1, 30_000, '2026-01-01T00:00:30.000Z'],
      [2, 60_000, '2026-01-01T00:01:00.000Z'],
      [3, 120_000, '2026-01-01T00:02:00.000Z'],
      [4, 240_000, '2026-01-01T00:04:00.000Z'],
      [5, 480_000, '2026-01-01T00:08:00.000Z'],
    ]);
    expect(states[5]).toEqual({ status: 'failed_permanent', nextRetryAt: null });
  });

  it.each([0, 1, 2, 5, 10])('maxRetries %i allows maxRetries + 1 attempts', (maxRetries) => {
    expect(failAll(maxRetries)).toHaveLength(maxRetries + 1);
  });

  it('a fatal outcome (URL rule violation) fails permanently at once, even with retries left', () => {
    expect(nextDeliveryState({ outcome: 'fatal', attemptCount: 1, maxRetries: 10, retryBaseMs: base, now })).toEqual({
      status: 'failed_permanent',
      nextRetryAt: null,
    });
  });

  it('an attempt beyond the allowance (a late duplicate) is never retried again', () => {
    expect(nextDeliveryState({ outcome: 'failed', attemptCount: 9, maxRetries: 5, retryBaseMs: base, now }).status).toBe(
      'failed_permanent',
    );
  });

  it('a lost attempt (its worker died) is retried at once while retries remain, and uses one up', () => {
    expect(nextDeliveryState({ outcome: 'lost', attemptCount: 1, maxRetries: 5, retryBaseMs: base, now })).toEqual({
      status: 'pending',
      nextRetryAt: now,
      delayMs: 0,
      retryNumber: 1,
    });
    expect(nextDeliveryState({ outcome: 'lost', attemptCount: 6, maxRetries: 5, retryBaseMs: base, now })).toEqual({
      status: 'failed_permanent',
      nextRetryAt: null,
    });
  });

  it('success on the last allowed attempt still delivers', () => {
    expect(nextDeliveryState({ outcome: 'ok', attemptCount: 6, maxRetries: 5, retryBaseMs: base, now }).status).toBe('delivered');
  });
});

describe('failureCounterEffect', () => {
  it('resets on delivered, counts failed_permanent, ignores pending', () => {
    expect(failureCounterEffect('delivered', { test: false })).toBe('reset');
    expect(failureCounterEffect('failed_permanent', { test: false })).toBe('increment');
    expect(failureCounterEffect('pending', { test: false })).toBe('none');
  });
  it('test deliveries never count either way', () => {
    expect(failureCounterEffect('delivered', { test: true })).toBe('none');
    expect(failureCounterEffect('failed_permanent', { test: true })).toBe('none');
  });
  it('a delivery stopped because the subscription is disabled, or ended by a lost attempt, does not count', () => {
    expect(failureCounterEffect('failed_permanent', { test: false }, true)).toBe('none');
  });
});

describe('Retry-After (extension)', () => {
  it('parses delta-seconds and HTTP-dates; anything else is ignored', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
  });

  it('clamps between the schedule and one hour (the schedule wins when longer)', () => {
    expect(clampRetryAfter(5_000, 30_000)).toBe(30_000);
    expect(clampRetryAfter(120_000, 30_000)).toBe(120_000);
    expect(clampRetryAfter(86_400_000, 30_000)).toBe(RETRY_AFTER_MAX_MS);
    expect(clampRetryAfter(10, 7_680_000)).toBe(7_680_000);
  });

  it('sets the next delay of a failed attempt, never of a lost one', () => {
    const state = nextDeliveryState({ outcome: 'failed', attemptCount: 1, maxRetries: 5, retryBaseMs: base, now, retryAfterMs: 90_000 });
    expect(state).toMatchObject({ status: 'pending', delayMs: 90_000, nextRetryAt: new Date(now.getTime() + 90_000) });
    const short = nextDeliveryState({ outcome: 'failed', attemptCount: 1, maxRetries: 5, retryBaseMs: base, now, retryAfterMs: 1 });
    expect(short).toMatchObject({ delayMs: base });
    const lost = nextDeliveryState({ outcome: 'lost', attemptCount: 1, maxRetries: 5, retryBaseMs: base, now, retryAfterMs: 90_000 });
    expect(lost).toMatchObject({ delayMs: 0 });
  });
});

describe('410 Gone (extension)', () => {
  it('ends the delivery at once and disables the subscription, unless a test delivery', () => {
    expect(nextDeliveryState({ outcome: 'gone', attemptCount: 1, maxRetries: 5, retryBaseMs: base, now })).toEqual({
      status: 'failed_permanent',
      nextRetryAt: null,
    });
    expect(failureCounterEffect('failed_permanent', { test: false }, false, 'gone')).toBe('gone');
    expect(failureCounterEffect('failed_permanent', { test: true }, false, 'gone')).toBe('none');
  });
});
