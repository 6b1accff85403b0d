/**
 * In-process bound on concurrent calls per key (the webhook engine's key is the subscription, so one
 * slow receiver cannot take every worker slot). Up to `limit` calls run at once per key. Further
 * callers may wait in memory, which is cheap for a fast key: up to `limit` of them always, and more
 * while their expected wait (queue length / limit × the key's typical call time, once measured)
 * stays within `waitBudgetMs`. No caller waits longer than `waitBudgetMs`. A caller refused or timed
 * out gets null and comes back later (a queue job is parked instead of holding a worker slot;
 * `parkDelayMs` says how long).
 *
 * Not p-limit: p-limit queues every caller without bound and cannot refuse, time out a waiter, or size
 * the wait by the key's measured call time, which is what keeps a slow key's jobs out of worker slots.
 */
export class KeyedConcurrencyLimiter {
  private readonly slots = new Map<string, Slot>();
  /** Typical call duration per key (exponentially weighted), kept after the key goes idle. */
  private readonly typicalMs = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly waitBudgetMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a new caller for this key would get null: lets a worker park a job before loading it. */
  isSaturated(key: string): boolean {
    const slot = this.slots.get(key);
    return slot !== undefined && slot.started.length >= this.limit && !this.mayWait(key, slot);
  }

  /** A release function once a slot is free, or null when the caller should come back later. */
  async acquire(key: string): Promise<(() => void) | null> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { started: [], waiting: [] };
      this.slots.set(key, slot);
    }
    if (slot.started.length < this.limit) return this.start(key, slot);
    if (!this.mayWait(key, slot)) return null;
    const current = slot;
    return new Promise<(() => void) | null>((resolve) => {
      // The releasing caller starts the waiter's call in the same tick, so the count never exceeds the limit.
      const waiter = (release: () => void) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        current.waiting.splice(current.waiting.indexOf(waiter), 1);
        resolve(null);
      }, this.waitBudgetMs);
      current.waiting.push(waiter);
    });
  }

  /**
   * How many more callers this key admits now without refusing them (free slots, plus the waiters the
   * wait budget allows at its measured call time; a key not measured yet admits `limit` waiters).
   */
  room(key: string, max: number): number {
    const slot = this.slots.get(key);
    const started = slot?.started.length ?? 0;
    const waiting = slot?.waiting.length ?? 0;
    const typical = this.typicalMs.get(key);
    const waitersAllowed =
      typical === undefined ? this.limit : Math.max(this.limit, Math.floor((this.waitBudgetMs * this.limit) / Math.max(typical, 0.1)) - 1);
    return Math.max(0, Math.min(max, this.limit - started + waitersAllowed - waiting));
  }

  /** How long to park a job of this key: about one call's time, between 250 ms and 5 s, jittered. */
  parkDelayMs(key: string): number {
    const base = Math.min(5_000, Math.max(250, this.estimateMs(key)));
    return Math.round(base * (0.5 + Math.random()));
  }

  /** Calls running now for this key (tests, metrics). */
  running(key: string): number {
    return this.slots.get(key)?.started.length ?? 0;
  }

  private mayWait(key: string, slot: Slot): boolean {
    if (slot.waiting.length < this.limit) return true;
    // A key not measured yet could be a slow one: no extra waiters until its first call completes.
    if (!this.typicalMs.has(key)) return false;
    const expectedWaitMs = ((slot.waiting.length + 1) / this.limit) * this.estimateMs(key, slot);
    return expectedWaitMs <= this.waitBudgetMs;
  }

  /** The key's typical call time, or longer while its oldest running call has already taken longer. */
  private estimateMs(key: string, slot = this.slots.get(key)): number {
    const typical = this.typicalMs.get(key) ?? 0;
    const oldest = slot && slot.started.length > 0 ? this.now() - Math.min(...slot.started) : 0;
    return Math.max(typical, oldest);
  }

  private start(key: string, slot: Slot): () => void {
    const startedAt = this.now();
    slot.started.push(startedAt);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const elapsed = this.now() - startedAt;
      const previous = this.typicalMs.get(key);
      if (previous === undefined && this.typicalMs.size >= MAX_REMEMBERED_KEYS) this.typicalMs.clear();
      this.typicalMs.set(key, previous === undefined ? elapsed : previous * 0.8 + elapsed * 0.2);
      slot.started.splice(slot.started.indexOf(startedAt), 1);
      const next = slot.waiting.shift();
      if (next) next(this.start(key, slot));
      else if (slot.started.length === 0) this.slots.delete(key);
    };
  }
}

interface Slot {
  /** Start times of the running calls. */
  started: number[];
  waiting: Array<(release: () => void) => void>;
}

const MAX_REMEMBERED_KEYS = 10_000;
