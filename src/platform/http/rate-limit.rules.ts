import * as ipaddr from 'ipaddr.js';

/**
 * The rate-limit algorithm, written once over a counter store so that the in-memory
 * fallback runs exactly this code and the Redis script (rate-limit.script.ts) mirrors it
 * line by line. Every window is a fixed window: a counter created with a time to live on
 * its first hit and never extended, so a window ends on its own schedule whatever
 * happens inside it.
 *
 * - A "bursty" limit allows `perWindow` hits per window; past that, each hit draws on a
 *   burst allowance of `burstExtra` hits that refills over `burstWindowMs` (ten windows),
 *   so a short burst passes while the sustained rate stays near `perWindow`.
 * - A key's request is first counted against its bursty limit; only when that allows it
 *   is it counted against the daily quota (refused requests never use up the day).
 * - Failed authentications are counted per client address with a bursty limit of their
 *   own; an address is blocked while its next failure would be refused.
 */

export interface Counter {
  count: number;
  /** Milliseconds until the counter's window ends (0 for a counter that does not exist). */
  msLeft: number;
}

/** Synchronous for the in-memory store; the Redis script implements the same three operations. */
export interface CounterStore {
  /** Adds one, creating the counter with `ttlMs` to live when it does not exist. */
  hit(key: string, ttlMs: number): Counter;
  peek(key: string): Counter;
  /** Takes one back; a counter that reaches zero is removed. */
  giveBack(key: string): void;
}

export interface BurstyLimit {
  perWindow: number;
  burstExtra: number;
  windowMs: number;
  burstWindowMs: number;
}

export interface KeyLimits extends BurstyLimit {
  perDay: number;
  dayMs: number;
}

/** The counters of one API key (by the hash of the key) and of one client address. */
export interface KeyCounters {
  window: string;
  burst: string;
  day: string;
}
export interface AddressCounters {
  window: string;
  burst: string;
}

export interface KeyDecision {
  /** 'allowed', refused by the key's own limits ('rate' or 'day'), or 'addressBlocked' (see takeGuarded). */
  outcome: 'allowed' | 'rate' | 'day' | 'addressBlocked';
  windowCount: number;
  windowMsLeft: number;
  dayCount: number;
  dayMsLeft: number;
  /** What this request added to, so that a request refused by authentication can take it back exactly. */
  took: { burst: boolean; day: boolean };
}

interface BurstyResult {
  allowed: boolean;
  count: number;
  msLeft: number;
  tookBurst: boolean;
}

function takeBursty(store: CounterStore, window: string, burst: string, limit: BurstyLimit): BurstyResult {
  const hit = store.hit(window, limit.windowMs);
  if (hit.count <= limit.perWindow) return { allowed: true, count: hit.count, msLeft: hit.msLeft, tookBurst: false };
  if (limit.burstExtra === 0) return { allowed: false, count: hit.count, msLeft: hit.msLeft, tookBurst: false };
  const extra = store.hit(burst, limit.burstWindowMs);
  return { allowed: extra.count <= limit.burstExtra, count: hit.count, msLeft: Math.min(hit.msLeft, extra.msLeft), tookBurst: true };
}

/** Counts one request of a key against its bursty limit and, when that allows it, its daily quota. */
export function takeKey(store: CounterStore, keys: KeyCounters, limits: KeyLimits): KeyDecision {
  const rate = takeBursty(store, keys.window, keys.burst, limits);
  const day = rate.allowed ? store.hit(keys.day, limits.dayMs) : store.peek(keys.day);
  const outcome = !rate.allowed ? 'rate' : day.count > limits.perDay ? 'day' : 'allowed';
  return {
    outcome,
    windowCount: rate.count,
    windowMsLeft: rate.msLeft,
    dayCount: day.count,
    dayMsLeft: day.msLeft,
    took: { burst: rate.tookBurst, day: rate.allowed },
  };
}

/** Takes back what takeKey added (a request that authentication then refused counts for nothing). */
export function giveBackKey(store: CounterStore, keys: KeyCounters, took: KeyDecision['took']): void {
  store.giveBack(keys.window);
  if (took.burst) store.giveBack(keys.burst);
  if (took.day) store.giveBack(keys.day);
}

/** Whether the address's next failed authentication would be refused, and for how long. */
export function addressBlock(store: CounterStore, address: AddressCounters, limit: BurstyLimit): { blocked: boolean; msLeft: number } {
  const window = store.peek(address.window);
  if (window.count < limit.perWindow) return { blocked: false, msLeft: 0 };
  if (limit.burstExtra === 0) return { blocked: true, msLeft: window.msLeft };
  const burst = store.peek(address.burst);
  return burst.count < limit.burstExtra ? { blocked: false, msLeft: 0 } : { blocked: true, msLeft: Math.min(window.msLeft, burst.msLeft) };
}

/**
 * takeKey for a request from an address known to be blocked: a key that has been allowed
 * today (its daily counter exists) goes on to the database as usual, any other is refused
 * without counting anything, so a flood of guessed keys costs neither a database read nor
 * Redis memory. Keys refused by authentication are given back, so only keys that
 * authenticated keep a daily counter.
 */
export function takeGuarded(
  store: CounterStore,
  keys: KeyCounters,
  address: AddressCounters,
  limits: KeyLimits,
  failureLimit: BurstyLimit,
): KeyDecision {
  const block = addressBlock(store, address, failureLimit);
  if (block.blocked && store.peek(keys.day).count === 0) {
    return {
      outcome: 'addressBlocked',
      windowCount: 0,
      windowMsLeft: block.msLeft,
      dayCount: 0,
      dayMsLeft: 0,
      took: { burst: false, day: false },
    };
  }
  return takeKey(store, keys, limits);
}

/** Counts one failed authentication from an address; `allowed` false once it is past its limit. */
export function takeFailure(store: CounterStore, address: AddressCounters, limit: BurstyLimit): { allowed: boolean; msLeft: number } {
  const result = takeBursty(store, address.window, address.burst, limit);
  return { allowed: result.allowed, msLeft: result.msLeft };
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * Header values for an allowed or rate-refused key request. X-RateLimit-* describe the
 * short window; the IETF draft fields (draft-ietf-httpapi-ratelimit-headers) name both policies.
 */
export function rateLimitHeaders(decision: KeyDecision, limits: KeyLimits): Record<string, string> {
  const remaining = Math.max(0, limits.perWindow - decision.windowCount);
  const dailyRemaining = Math.max(0, limits.perDay - decision.dayCount);
  const reset = seconds(decision.windowMsLeft);
  const windowSeconds = Math.round(limits.windowMs / 1000);
  const daySeconds = Math.round(limits.dayMs / 1000);
  return {
    'X-RateLimit-Limit': String(limits.perWindow),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(reset),
    'RateLimit-Policy': `"burst";q=${limits.perWindow};w=${windowSeconds}, "daily";q=${limits.perDay};w=${daySeconds}`,
    RateLimit: `"burst";r=${remaining};t=${reset}, "daily";r=${dailyRemaining};t=${seconds(decision.dayMsLeft)}`,
  };
}

/** Whole seconds until the limiting window frees a request (at least 1, so clients never spin). */
export function retryAfterSeconds(msLeft: number): number {
  return Math.max(1, Math.ceil(msLeft / 1000));
}

/** "3 requests per second", or "3 requests per 60 seconds" when the window is longer. */
export function describeRate(perWindow: number, windowMs: number): string {
  const windowSeconds = Math.round(windowMs / 1000);
  return `${perWindow} requests per ${windowSeconds === 1 ? 'second' : `${windowSeconds} seconds`}`;
}

/**
 * The identity failed authentications are counted under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address by its /64, the block one
 * subscriber gets, so that hopping between addresses in it does not escape the limit.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${parts.join(':')}::/64`;
}
