import { KeyedConcurrencyLimiter } from './keyed-limiter';

describe('KeyedConcurrencyLimiter', () => {
  it('runs up to `limit` at once per key and queues the next callers', async () => {
    const limiter = new KeyedConcurrencyLimiter(2);
    const a = await limiter.acquire('s1');
    const b = await limiter.acquire('s1');
    expect(limiter.running('s1')).toBe(2);
    let cGot: (() => void) | null | undefined;
    const c = limiter.acquire('s1').then((release) => (cGot = release));
    await Promise.resolve();
    expect(cGot).toBeUndefined();
    // Another key is unaffected.
    const other = await limiter.acquire('s2');
    expect(other).not.toBeNull();

    a!();
    // Handed over in the same tick: a newcomer cannot slip in between.
    expect(limiter.running('s1')).toBe(2);
    await c;
    expect(typeof cGot).toBe('function');
    b!();
    cGot!();
    expect(limiter.running('s1')).toBe(0);
    other!();
    expect(limiter.running('s2')).toBe(0);
  });

  it('releasing twice frees only one slot', async () => {
    const limiter = new KeyedConcurrencyLimiter(1);
    const a = await limiter.acquire('s');
    a!();
    a!();
    await limiter.acquire('s');
    expect(limiter.running('s')).toBe(1);
  });

  it('lets many callers wait for a fast key, but parks callers of a slow one beyond `limit` waiting', async () => {
    let clock = 0;
    const limiter = new KeyedConcurrencyLimiter(2, 1_000, () => clock);
    // Fast key: calls of 5 ms → 50 waiters expect ~125 ms, within the budget.
    const fast = [await limiter.acquire('fast'), await limiter.acquire('fast')];
    clock += 5;
    fast.forEach((release) => release!());
    const holders = [await limiter.acquire('fast'), await limiter.acquire('fast')];
    const waiters = Array.from({ length: 50 }, () => limiter.acquire('fast'));
    expect(limiter.isSaturated('fast')).toBe(false);

    // Slow key: its running calls are already 3 s old, so only `limit` (2) may wait; then null.
    const slow = [await limiter.acquire('slow'), await limiter.acquire('slow')];
    clock += 3_000;
    const slowWaiters = [limiter.acquire('slow'), limiter.acquire('slow')];
    expect(limiter.isSaturated('slow')).toBe(true);
    expect(await limiter.acquire('slow')).toBeNull();
    expect(limiter.parkDelayMs('slow')).toBeGreaterThanOrEqual(1_500);
    expect(limiter.parkDelayMs('slow')).toBeLessThanOrEqual(4_500);

    // Everything drains.
    holders.forEach((release) => release!());
    for (const waiter of waiters) (await waiter)!();
    slow.forEach((release) => release!());
    for (const waiter of slowWaiters) (await waiter)!();
    expect(limiter.running('fast')).toBe(0);
    expect(limiter.running('slow')).toBe(0);
  });

  it('a caller waits at most waitBudgetMs, then gets null (its job is parked)', async () => {
    const limiter = new KeyedConcurrencyLimiter(1, 30);
    const holder = await limiter.acquire('s');
    const started = Date.now();
    expect(await limiter.acquire('s')).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    // The timed-out waiter left the queue: the next release frees the slot.
    holder!();
    expect(limiter.running('s')).toBe(0);
  });

  it('allows no extra waiters for a key never measured', async () => {
    const limiter = new KeyedConcurrencyLimiter(2);
    const running = [await limiter.acquire('new'), await limiter.acquire('new')];
    const waiters = [limiter.acquire('new'), limiter.acquire('new')];
    expect(limiter.isSaturated('new')).toBe(true);
    expect(await limiter.acquire('new')).toBeNull();
    running.forEach((release) => release!());
    for (const waiter of waiters) (await waiter)!();
  });

  it('never exceeds the limit under concurrent load', async () => {
    const limiter = new KeyedConcurrencyLimiter(3);
    let now = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        let release = await limiter.acquire('s');
        while (!release) {
          await new Promise((r) => setTimeout(r, 1)); // parked, as the worker would
          release = await limiter.acquire('s');
        }
        now++;
        peak = Math.max(peak, now);
        await new Promise((r) => setTimeout(r, 1));
        now--;
        release();
      }),
    );
    expect(peak).toBe(3);
    expect(limiter.running('s')).toBe(0);
  });

  it('room: free slots plus the waiters the budget allows at the measured call time, at most `max`', async () => {
    let now = 0;
    const limiter = new KeyedConcurrencyLimiter(2, 1_000, () => now);
    // Never measured: its slots and as many waiters.
    expect(limiter.room('s1', 100)).toBe(4);
    const a = await limiter.acquire('s1');
    expect(limiter.room('s1', 100)).toBe(3);
    now = 10;
    a!();
    // Measured at 10 ms a call: two slots × 1 s / 10 ms of waiting, bounded by `max`.
    expect(limiter.room('s1', 100)).toBe(100);
    expect(limiter.room('s1', 50)).toBe(50);
    now = 20;
    const b = await limiter.acquire('s1');
    const c = await limiter.acquire('s1');
    now = 2_020;
    b!();
    c!();
    // A slow key (measured near a second) admits its slots and `limit` waiters only.
    expect(limiter.room('s1', 100)).toBe(4);
  });
});
