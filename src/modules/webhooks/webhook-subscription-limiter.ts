/**
 * In-process bound on concurrent HTTP calls per subscription, so one slow receiver cannot take
 * every worker slot. Up to `limit` calls run; up to `maxWaiting` more wait their turn in memory
 * (cheap for a fast receiver); beyond that `acquire` answers null and the caller parks the job
 * in the queue for a moment instead of holding a worker slot.
 */
export class SubscriptionLimiter {
  private readonly slots = new Map<string, { running: number; waiting: Array<() => void> }>();

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /** True when a new caller for this key would get null: lets a worker bounce a job before loading it. */
  isSaturated(key: string): boolean {
    const slot = this.slots.get(key);
    return slot !== undefined && slot.running >= this.limit && slot.waiting.length >= this.maxWaiting;
  }

  /** A release function once a slot is free, or null when too many callers already wait. */
  async acquire(key: string): Promise<(() => void) | null> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { running: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.running < this.limit) {
      slot.running++;
      return this.releaser(key, slot);
    }
    if (slot.waiting.length >= this.maxWaiting) return null;
    const current = slot;
    // The releasing caller hands its slot over directly (running stays the same).
    await new Promise<void>((resolve) => current.waiting.push(resolve));
    return this.releaser(key, current);
  }

  /** Calls running now for this key (tests, metrics). */
  running(key: string): number {
    return this.slots.get(key)?.running ?? 0;
  }

  private releaser(key: string, slot: { running: number; waiting: Array<() => void> }): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slot.waiting.shift();
      if (next) {
        next();
        return;
      }
      slot.running--;
      if (slot.running === 0) this.slots.delete(key);
    };
  }
}
