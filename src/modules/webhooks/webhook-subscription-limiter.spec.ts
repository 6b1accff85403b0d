import { SubscriptionLimiter } from './webhook-subscription-limiter';

describe('SubscriptionLimiter', () => {
  it('runs up to `limit` at once per key, queues up to `maxWaiting`, refuses beyond', async () => {
    const limiter = new SubscriptionLimiter(2, 1);
    const a = await limiter.acquire('s1');
    const b = await limiter.acquire('s1');
    expect(limiter.running('s1')).toBe(2);
    let cGot: (() => void) | null | undefined;
    const c = limiter.acquire('s1').then((release) => (cGot = release));
    await Promise.resolve();
    expect(cGot).toBeUndefined();
    expect(limiter.isSaturated('s1')).toBe(true);
    expect(await limiter.acquire('s1')).toBeNull();
    // Another key is unaffected.
    const other = await limiter.acquire('s2');
    expect(other).not.toBeNull();

    a!();
    await c;
    expect(typeof cGot).toBe('function');
    expect(limiter.running('s1')).toBe(2);
    expect(limiter.isSaturated('s1')).toBe(false);

    b!();
    cGot!();
    expect(limiter.running('s1')).toBe(0);
    other!();
    expect(limiter.running('s2')).toBe(0);
  });

  it('releasing twice frees only one slot', async () => {
    const limiter = new SubscriptionLimiter(1, 0);
    const a = await limiter.acquire('s');
    a!();
    a!();
    const b = await limiter.acquire('s');
    expect(b).not.toBeNull();
    expect(await limiter.acquire('s')).toBeNull();
    expect(limiter.running('s')).toBe(1);
  });

  it('never exceeds the limit under concurrent load', async () => {
    const limiter = new SubscriptionLimiter(3, 100);
    let now = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const release = await limiter.acquire('s');
        now++;
        peak = Math.max(peak, now);
        await new Promise((r) => setTimeout(r, 1));
        now--;
        release!();
      }),
    );
    expect(peak).toBe(3);
    expect(limiter.running('s')).toBe(0);
  });
});
