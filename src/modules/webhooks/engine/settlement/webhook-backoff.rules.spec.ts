import {
  clampRetryAfter,
  failureCounterEffect,
  nextDeliveryState,
  parseRetryAfter,
  RETRY_AFTER_MAX_MS,
  retryDelayMs,
  settleAttempt,
  SettleInput,
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

describe('settleAttempt', () => {
  const at = new Date(now.getTime() - 250);
  const settle = (report: Partial<SettleInput['report']>, delivery: Partial<SettleInput['delivery']> = {}, uncounted = false) =>
    settleAttempt({
      report: { outcome: 'failed', responseCode: 500, responseSnippet: 'oops', errorMessage: 'HTTP 500', ...report },
      at,
      durationMs: 250,
      uncounted,
      delivery: { attemptCount: 0, retryBase: 0, test: false, maxRetries: 2, ...delivery },
      retryBaseMs: base,
      now,
    });

  it('records a success: delivered, the counter reset, the attempt as it went', () => {
    const settled = settle({ outcome: 'ok', responseCode: 204, responseSnippet: null, errorMessage: null, resolvedIp: '203.0.113.7' });
    expect(settled).toEqual({
      attemptCount: 1,
      state: { status: 'delivered', nextRetryAt: null },
      counter: 'reset',
      attempt: {
        at: at.toISOString(),
        responseCode: 204,
        responseSnippet: null,
        errorMessage: null,
        durationMs: 250,
        errorClass: null,
        resolvedIp: '203.0.113.7',
        timings: null,
        retryAfterMs: null,
      },
      backpressureUntil: null,
    });
  });

  it('counts the retry budget from the current round (a retried or replayed delivery starts a new one)', () => {
    expect(settle({}, { attemptCount: 2 }).state.status).toBe('failed_permanent');
    expect(settle({}, { attemptCount: 2 }).counter).toBe('increment');
    const newRound = settle({}, { attemptCount: 3, retryBase: 3 });
    expect(newRound.attemptCount).toBe(4);
    expect(newRound.state).toMatchObject({ status: 'pending', delayMs: base, retryNumber: 1 });
    expect(newRound.counter).toBe('none');
  });

  it('honours a Retry-After within its bounds and says so in the attempt; back-pressure only on a counted failure', () => {
    const pending = settle({ responseCode: 429, retryAfter: '120' });
    expect(pending.state).toMatchObject({ status: 'pending', delayMs: 120_000 });
    expect(pending.attempt.retryAfterMs).toBe(120_000);
    expect(pending.backpressureUntil).toBeNull();
    // The last attempt: the delay it would have had is kept, and the counted failure sets back-pressure.
    const last = settle({ responseCode: 503, retryAfter: '10' }, { attemptCount: 2 });
    expect(last.state.status).toBe('failed_permanent');
    expect(last.attempt.retryAfterMs).toBe(clampRetryAfter(10_000, retryDelayMs(base, 3)));
    expect(last.backpressureUntil).toEqual(new Date(now.getTime() + last.attempt.retryAfterMs!));
    expect(settle({ responseCode: 503, retryAfter: 'soon' }).attempt.retryAfterMs).toBeNull();
  });

  it('says a 410 disabled the subscription, and counts nothing for test deliveries or uncounted stops', () => {
    const gone = settle({ outcome: 'gone', responseCode: 410, errorMessage: 'HTTP 410' });
    expect(gone.counter).toBe('gone');
    expect(gone.attempt.errorMessage).toBe('HTTP 410: the receiver is gone, subscription disabled');
    expect(settle({}, { attemptCount: 2, test: true }).counter).toBe('none');
    expect(settle({ outcome: 'lost', responseCode: null }, { attemptCount: 2 }, true).counter).toBe('none');
  });
});
