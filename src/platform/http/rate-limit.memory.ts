import { Counter, CounterStore } from './rate-limit.rules';

/** How often expired counters are swept out, so a flood of one-off keys cannot grow the map without end. */
const SWEEP_EVERY_MS = 10_000;

/**
 * Counters in this process's memory with the Redis counters' semantics (fixed time to
 * live from the first hit). The fallback while Redis is unreachable: each API process
 * then limits on its own. The clock is injectable so that tests can drive the windows.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private nextSweepAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.nextSweepAt = now() + SWEEP_EVERY_MS;
  }

  hit(key: string, ttlMs: number): Counter {
    const now = this.now();
    this.sweep(now);
    let counter = this.live(key, now);
    if (!counter) {
      counter = { count: 0, expiresAt: now + ttlMs };
      this.counters.set(key, counter);
    }
    counter.count++;
    return { count: counter.count, msLeft: counter.expiresAt - now };
  }

  peek(key: string): Counter {
    const now = this.now();
    const counter = this.live(key, now);
    return counter ? { count: counter.count, msLeft: counter.expiresAt - now } : { count: 0, msLeft: 0 };
  }

  giveBack(key: string): void {
    const counter = this.live(key, this.now());
    if (!counter) return;
    counter.count--;
    if (counter.count <= 0) this.counters.delete(key);
  }

  /** Counters currently held (for tests of the sweep). */
  get size(): number {
    return this.counters.size;
  }

  private live(key: string, now: number) {
    const counter = this.counters.get(key);
    if (counter && counter.expiresAt <= now) {
      this.counters.delete(key);
      return undefined;
    }
    return counter;
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_EVERY_MS;
    for (const [key, counter] of this.counters) if (counter.expiresAt <= now) this.counters.delete(key);
  }
}
