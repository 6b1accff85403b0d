import { Coalescer } from './coalescer';

describe('Coalescer', () => {
  it('runs a lone call at once, and batches calls that arrive while batches are running', async () => {
    const batches: number[][] = [];
    let unblock: () => void = () => undefined;
    const coalescer = new Coalescer<number, string>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((resolve) => (unblock = resolve));
        return items.map((n) => `r${n}`);
      },
      3,
      1,
    );
    const first = coalescer.call(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((n) => coalescer.call(n));
    unblock();
    expect(await first).toBe('r1');
    expect(await Promise.all(rest)).toEqual(['r2', 'r3', 'r4', 'r5']);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('rejects every call of a failed batch and keeps serving later calls', async () => {
    let fail = true;
    const coalescer = new Coalescer<number, number>(
      async (items) => {
        if (fail) throw new Error('down');
        return items.map((n) => n * 2);
      },
      10,
      2,
    );
    await expect(coalescer.call(1)).rejects.toThrow('down');
    fail = false;
    expect(await coalescer.call(2)).toBe(4);
  });

  it('never runs more than maxParallel batches at once', async () => {
    let running = 0;
    let peak = 0;
    const coalescer = new Coalescer<number, number>(
      async (items) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return items;
      },
      2,
      2,
    );
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => coalescer.call(i)));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(peak).toBe(2);
  });
});
