import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { once } from 'node:events';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RedisCircuit } from '../redis/redis-circuit';
import { closeRedisClient, createRedisClient, RedisClient } from '../redis/redis-factory';
import { MemoryCounterStore } from './rate-limit.memory';
import {
  AddressCounters,
  BurstyLimit,
  giveBackKey,
  KeyCounters,
  KeyDecision,
  KeyLimits,
  takeFailure,
  takeGuarded,
  takeKey,
} from './rate-limit.rules';
import { RATE_LIMIT_LUA } from './rate-limit.script';

/** Past this, a rate-limit call counts in memory instead: a stalled Redis must not stall requests. */
const REDIS_TIMEOUT_MS = 1000;
/**
 * Past this, a rate-limit call opens the process's RedisCircuit (and so counts in memory): a script that
 * answers in under a millisecond normally and has not in half a second is a Redis that stopped answering.
 */
const CIRCUIT_DEADLINE_MS = 500;
/** The burst allowance refills over this many windows, so the sustained rate stays near the per-window limit. */
const BURST_WINDOWS = 10;
const DAY_MS = 86_400_000;
/** Past this many blocked addresses at once, more are not noted (they still get 429s, after their key lookup). */
const MAX_NOTED_ADDRESSES = 10_000;
const OUTCOMES: KeyDecision['outcome'][] = ['allowed', 'rate', 'day', 'addressBlocked'];

type ScriptOperation = 'key' | 'guarded' | 'failure' | 'giveBack';
interface ScriptClient {
  rateLimit(...keysAndArgs: Array<string | number>): Promise<number[]>;
}

/**
 * Per-key limits and the per-address limit on failed authentications, shared by every API
 * process through Redis. Each call is one round trip (one script deciding every window it
 * touches). While Redis is unreachable each process falls back to counters in its own
 * memory, running the same algorithm, rather than failing requests.
 *
 * A key is counted under its hash (the limiter needs no database row, so it runs beside
 * the key lookup). Nothing here remembers whether a key is valid: the database decides
 * that on every request, so a revoked key is refused on its next request everywhere.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  readonly keyLimits: KeyLimits;
  readonly failureLimit: BurstyLimit;
  private readonly logger = new Logger(RateLimiter.name);
  private readonly memory = new MemoryCounterStore();
  private readonly prefix: string;
  /**
   * Its own connection, set to fail fast: no offline queue and no retries, so while Redis is
   * down (or a command is in flight when it goes) requests count in memory at once instead of
   * waiting for the reconnection; auto-pipelining sends concurrent requests' scripts in one write.
   */
  private readonly redis: RedisClient;
  private readonly script: ScriptClient;
  /** Addresses this process has seen past their failure limit, until when: their requests go through takeGuarded. */
  private readonly blockedUntil = new Map<string, number>();
  private latestBlockEnd = 0;
  private redisFailing = false;

  /**
   * `circuit`: the process's (RedisCircuit): a script call that times out opens it, and while it is open
   * requests count in memory at once instead of each waiting REDIS_TIMEOUT_MS. Absent in tests that
   * make a limiter by hand.
   */
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly circuit?: RedisCircuit,
  ) {
    const { rateLimit } = config;
    const windowMs = rateLimit.windowSeconds * 1000;
    const burstWindowMs = windowMs * BURST_WINDOWS;
    this.keyLimits = {
      perWindow: rateLimit.perSecond,
      burstExtra: rateLimit.burst - rateLimit.perSecond,
      windowMs,
      burstWindowMs,
      perDay: rateLimit.perDay,
      dayMs: DAY_MS,
    };
    this.failureLimit = {
      perWindow: rateLimit.failedAuth.perSecond,
      burstExtra: rateLimit.failedAuth.burst - rateLimit.failedAuth.perSecond,
      windowMs,
      burstWindowMs,
    };
    // One hash tag for every counter: a script's keys must share a Redis Cluster slot, and the script
    // reads a key's counters and an address's together (takeGuarded, takeFailure), while an address's
    // counters are shared by every key. So the limiter lives on one slot (one primary of a Cluster): one
    // short script per request, far below what one Redis node serves. On one server the braces are just characters.
    this.prefix = `${config.redisPrefix}:{rl}`;
    this.redis = createRedisClient(config.redis, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      commandTimeout: REDIS_TIMEOUT_MS,
    });
    this.redis.on('error', (error: Error) => this.noteRedisFailure(error.message));
    // Its socket stopped answering: dropped and made again, so until the new one is ready requests count in
    // memory without waiting (status is not 'ready'), and behind Sentinel it lands on the primary of now.
    circuit?.onOpen(() => this.redis.disconnect(true));
    this.redis.defineCommand('rateLimit', { numberOfKeys: 5, lua: RATE_LIMIT_LUA });
    this.script = this.redis as unknown as ScriptClient;
  }

  /** Starts serving once connected (or refused), so the first requests are not counted in memory for no reason. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    const gaveUp = new AbortController();
    const timer = setTimeout(() => gaveUp.abort(), REDIS_TIMEOUT_MS);
    await Promise.race([once(this.redis, 'ready', { signal: gaveUp.signal }), once(this.redis, 'error', { signal: gaveUp.signal })])
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        gaveUp.abort();
      });
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedisClient(this.redis);
  }

  /** Counts a request of the key with this hash (one round trip; it needs no database row, so it runs beside the key lookup). */
  takeKey(keyHash: Buffer): Promise<KeyDecision> {
    const keys = this.keyCounters(keyHash);
    return this.decide('key', keys, this.addressCounters('-'), (store) => takeKey(store, keys, this.keyLimits));
  }

  /**
   * takeKey for a request from an address isBlocked() named: refused ('addressBlocked') without
   * counting, unless the key has been allowed today; the caller looks the key up only after it.
   */
  async takeGuarded(keyHash: Buffer, address: string): Promise<KeyDecision> {
    const keys = this.keyCounters(keyHash);
    const addressKeys = this.addressCounters(address);
    const decision = await this.decide('guarded', keys, addressKeys, (store) =>
      takeGuarded(store, keys, addressKeys, this.keyLimits, this.failureLimit),
    );
    if (decision.outcome === 'addressBlocked') this.noteBlocked(address, Date.now() + decision.windowMsLeft);
    return decision;
  }

  private async decide(
    operation: 'key' | 'guarded',
    keys: KeyCounters,
    address: AddressCounters,
    inMemory: (store: MemoryCounterStore) => KeyDecision,
  ): Promise<KeyDecision> {
    const reply = await this.run(operation, keys, address, [0, 0, 0], inMemory);
    if (!Array.isArray(reply)) return reply;
    const [outcome, windowCount, windowMsLeft, dayCount, dayMsLeft, tookBurst, tookDay] = reply;
    return {
      outcome: OUTCOMES[outcome],
      windowCount,
      windowMsLeft,
      dayCount,
      dayMsLeft,
      took: { burst: tookBurst === 1, day: tookDay === 1 },
    };
  }

  /** Whether this process has noted any blocked address at all (cheap: the usual answer is no). */
  anyBlocked(): boolean {
    return this.blockedUntil.size > 0 && Date.now() < this.latestBlockEnd;
  }

  /** Whether this process has seen the address past its failure limit and the block may still hold. */
  isBlocked(address: string): boolean {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.blockedUntil.delete(address);
    return false;
  }

  /**
   * Counts a failed authentication from `address`, giving back what the request had taken
   * of the presented key's counters (so a guessed key leaves nothing behind in Redis).
   */
  async takeFailure(
    address: string,
    presented?: { keyHash: Buffer; took: KeyDecision['took'] },
  ): Promise<{ allowed: boolean; msLeft: number }> {
    const addressKeys = this.addressCounters(address);
    const keys = presented ? this.keyCounters(presented.keyHash) : this.keyCounters(undefined);
    const giveBack = presented ? [1, presented.took.burst ? 1 : 0, presented.took.day ? 1 : 0] : [0, 0, 0];
    const reply = await this.run('failure', keys, addressKeys, giveBack, (store) => {
      if (presented) giveBackKey(store, keys, presented.took);
      return takeFailure(store, addressKeys, this.failureLimit);
    });
    const result = Array.isArray(reply) ? { allowed: reply[0] === 1, msLeft: reply[1] } : reply;
    if (!result.allowed) this.noteBlocked(address, Date.now() + result.msLeft);
    return result;
  }

  /** Gives back a request's counts (the key was valid but authentication refused it); never rejects, so callers need not wait. */
  async giveBack(keyHash: Buffer, took: KeyDecision['took']): Promise<void> {
    const keys = this.keyCounters(keyHash);
    const flags = [1, took.burst ? 1 : 0, took.day ? 1 : 0];
    await this.run('giveBack', keys, this.addressCounters('-'), flags, (store) => giveBackKey(store, keys, took)).catch((error: Error) =>
      this.logger.warn(`could not give back a rate-limit count: ${error.message}`),
    );
  }

  private noteBlocked(address: string, until: number): void {
    if (this.blockedUntil.size >= MAX_NOTED_ADDRESSES) {
      const now = Date.now();
      for (const [noted, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(noted);
    }
    if (this.blockedUntil.size < MAX_NOTED_ADDRESSES) this.blockedUntil.set(address, until);
    this.latestBlockEnd = Math.max(this.latestBlockEnd, until);
  }

  private keyCounters(keyHash: Buffer | undefined): KeyCounters {
    // 16 bytes of the hash name the key uniquely enough and keep Redis keys short.
    const id = keyHash ? keyHash.subarray(0, 16).toString('base64url') : '-';
    return { window: `${this.prefix}:w:${id}`, burst: `${this.prefix}:b:${id}`, day: `${this.prefix}:d:${id}` };
  }

  private addressCounters(address: string): AddressCounters {
    return { window: `${this.prefix}:fw:${address}`, burst: `${this.prefix}:fb:${address}` };
  }

  /** One script call on Redis, or the same algorithm on this process's counters while Redis is unreachable. */
  private async run<T>(
    operation: ScriptOperation,
    keys: KeyCounters,
    address: AddressCounters,
    giveBack: number[],
    inMemory: (store: MemoryCounterStore) => T,
  ): Promise<number[] | T> {
    if (this.circuit?.isOpen) {
      this.circuit.gaveUp('rateLimit');
    } else if (this.redis.status === 'ready') {
      try {
        const call = this.script.rateLimit(
          keys.window,
          keys.burst,
          keys.day,
          address.window,
          address.burst,
          operation,
          this.keyLimits.perWindow,
          this.keyLimits.burstExtra,
          this.keyLimits.windowMs,
          this.keyLimits.burstWindowMs,
          this.keyLimits.perDay,
          this.keyLimits.dayMs,
          this.failureLimit.perWindow,
          this.failureLimit.burstExtra,
          ...giveBack,
        );
        // A call under way when the circuit opens (another call timed out first) stops waiting too.
        const answered = this.circuit ? await this.circuit.race(call, 'rateLimit', CIRCUIT_DEADLINE_MS) : { value: await call };
        if (!answered) {
          this.circuit!.gaveUp('rateLimit');
          return inMemory(this.memory);
        }
        const reply = answered.value;
        if (this.redisFailing) {
          this.redisFailing = false;
          this.logger.log('rate limits are shared through Redis again');
        }
        return reply;
      } catch (error) {
        const message = (error as Error).message;
        // A Cluster that lost a primary answers CLUSTERDOWN (after retrying for a while): as good as hung.
        if (message === 'Command timed out' || message.startsWith('CLUSTERDOWN')) this.circuit?.timedOut('rateLimit', message);
        this.noteRedisFailure(message);
      }
    } else {
      this.noteRedisFailure(`connection ${this.redis.status}`);
    }
    return inMemory(this.memory);
  }

  private noteRedisFailure(reason: string): void {
    if (this.redisFailing) return;
    this.redisFailing = true;
    this.logger.warn(`Redis unavailable for rate limits (${reason}): limiting in this process's memory until it returns`);
  }
}
