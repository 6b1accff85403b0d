import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'undici';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { boundedCache } from '../../../../platform/cache/bounded-cache';
import { OutboundUrlPolicy, policyViolationOf } from '../../../../platform/net/outbound-url-policy';
import { UrlPolicyError } from '../../../../platform/net/url-policy.rules';
import { REDIS } from '../../../../platform/redis/redis.module';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { OAuth2Settings, receiverAuthContext, tokenReuseMs } from '../../receiver-auth.rules';
import { tokenCacheName, tokenFromAnswer, tokenRequest } from './receiver-token.rules';
import { networkErrorMessage } from './webhook-delivery.rules';

/** A token to send, with the cached value it came from (a 401 drops exactly that one), or why there is none. */
export type Token = { token: string; cached: string | null; name: string };
export type TokenResult = Token | { problem: string };

/** Bytes of a token endpoint's answer read at most (a token answer is a few hundred). */
const ANSWER_MAX_BYTES = 64 * 1024;
/** How often an attempt waiting for another worker's token request looks for its token. */
const POLL_MS = 25;
/** A failed request's reason stays this long for the attempts that waited for it. */
const FAILURE_HOLDS_MS = 5_000;
/** Drops the cached token only if it is still the one that was refused (a newer one stays). */
/** Tokens held open per process at most. */
const HELD_MAX = 1_000;
const DROP_LUA = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

interface DropClient {
  dropToken(key: string, value: string): Promise<number>;
}

/**
 * OAuth2 access tokens of receivers (issue 42), one per subscription shared by every worker and process
 * through Redis, sealed there with SECRETS_ENCRYPTION_KEY: the first attempt that needs one takes a
 * short Redis lock and asks the token endpoint, the others (here or in other workers) wait for its
 * answer; the token is kept until `expires_in` minus the smaller of 10% and 60 s. So N deliveries
 * within a token's lifetime make one token request. A receiver's 401 drops it. While Redis does not
 * answer, each attempt asks for its own token (delivery goes on, unshared).
 */
@Injectable()
export class ReceiverTokens implements OnApplicationShutdown {
  private readonly logger = new Logger(ReceiverTokens.name);
  private readonly agent: Agent;
  private readonly prefix: string;
  /** Requests for a token running in this process, by cache name: attempts of a batch share one. */
  private readonly running = new Map<string, Promise<TokenResult>>();
  /**
   * Tokens this process holds open, by cache name, until their shared copy expires: a fan-out's attempts
   * reuse them without a Redis round trip or an opening each. A 401 drops the copy here and in Redis; other
   * processes' copies of the same token go at their own 401 (their retry then finds the new one).
   */
  private readonly held = boundedCache<string, { result: Token; until: number }>(HELD_MAX);
  private redisDownReported = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly policy: OutboundUrlPolicy,
    private readonly box: SecretBox,
  ) {
    redis.defineCommand('dropToken', { numberOfKeys: 1, lua: DROP_LUA });
    this.agent = policy.createAgent({ connectTimeoutMs: config.webhook.timeoutMs, keepAliveTimeoutMs: 4_000 });
    this.prefix = `${config.redisPrefix}:rtoken:`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  /** The subscription's token: the shared one, or a new one asked for once. `openSecret` opens the client secret. */
  token(subscriptionId: string, stored: OAuth2Settings & { clientSecret: string }, openSecret: () => string): Promise<TokenResult> {
    const name = tokenCacheName(subscriptionId, stored);
    const held = this.held.get(name);
    if (held && held.until > Date.now()) return Promise.resolve(held.result);
    let running = this.running.get(name);
    if (!running) {
      running = this.shared(subscriptionId, name, stored, openSecret).finally(() => this.running.delete(name));
      this.running.set(name, running);
    }
    return running;
  }

  /** After the receiver answered 401 to `result`'s token: the next attempt asks for a new one. */
  async refused(result: TokenResult): Promise<void> {
    if (!('token' in result)) return;
    if (this.held.get(result.name)?.result.token === result.token) this.held.delete(result.name);
    if (result.cached === null) return;
    await (this.redis as unknown as DropClient).dropToken(this.key(result.name), result.cached).catch(() => undefined);
  }

  /** Holds the token open here for `ttlMs` (its shared copy's time left). */
  private hold(result: Token, ttlMs: number): TokenResult {
    if (ttlMs > 0) this.held.set(result.name, { result, until: Date.now() + ttlMs });
    return result;
  }

  private key(name: string): string {
    // One hash tag per token: its lock and failure note live in the same slot (Redis Cluster).
    return `${this.prefix}{${name}}`;
  }

  private async shared(
    subscriptionId: string,
    name: string,
    stored: OAuth2Settings & { clientSecret: string },
    openSecret: () => string,
  ): Promise<TokenResult> {
    const key = this.key(name);
    const context = receiverAuthContext(subscriptionId, 'token');
    const deadline = Date.now() + this.config.webhook.timeoutMs * 2;
    try {
      for (;;) {
        const [[, cached], [, ttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [[unknown, string | null], [unknown, number]];
        if (cached !== null) return this.hold({ token: this.box.open(cached, context), cached, name }, ttl);
        const lock = randomUUID();
        if ((await this.redis.set(`${key}:lock`, lock, 'PX', this.config.webhook.timeoutMs + 1_000, 'NX')) === 'OK') {
          try {
            return await this.fetchAndShare(key, name, lock, stored, openSecret(), context);
          } finally {
            await this.redis.eval(DROP_LUA, 1, `${key}:lock`, lock).catch(() => undefined);
          }
        }
        // Another worker asks: wait for its token, or for its failure.
        const holder = await this.redis.get(`${key}:lock`);
        await sleep(POLL_MS);
        const failure = holder === null ? null : await this.redis.get(`${key}:failed:${holder}`);
        if (failure !== null) return { problem: failure };
        if (Date.now() > deadline) return { problem: 'timed out waiting for the token request of another worker' };
      }
    } catch (error) {
      if (error instanceof UrlPolicyError || !isRedisError(error)) throw error;
      if (!this.redisDownReported) {
        this.redisDownReported = true;
        this.logger.warn(`token cache unreachable, each attempt asks for its own token: ${(error as Error).message}`);
      }
      const fetched = await this.fetch(stored, openSecret());
      return 'problem' in fetched ? fetched : { token: fetched.accessToken, cached: null, name };
    }
  }

  private async fetchAndShare(
    key: string,
    name: string,
    lock: string,
    stored: OAuth2Settings,
    clientSecret: string,
    context: string,
  ): Promise<TokenResult> {
    const fetched = await this.fetch(stored, clientSecret);
    if ('problem' in fetched) {
      await this.redis.set(`${key}:failed:${lock}`, fetched.problem, 'PX', FAILURE_HOLDS_MS);
      return fetched;
    }
    this.redisDownReported = false;
    const cached = this.box.seal(fetched.accessToken, context);
    const reuseMs = Math.max(1, tokenReuseMs(fetched.expiresIn));
    await this.redis.set(key, cached, 'PX', reuseMs);
    return this.hold({ token: fetched.accessToken, cached, name }, reuseMs);
  }

  /**
   * One client-credentials request: the token URL checked again (its host may resolve elsewhere now) and
   * POSTed through an agent whose connect-time lookup repeats the address check. Never follows redirects;
   * keeps nothing of the answer but the token.
   */
  private async fetch(
    stored: OAuth2Settings,
    clientSecret: string,
  ): Promise<{ accessToken: string; expiresIn: unknown } | { problem: string }> {
    const { timeoutMs } = this.config.webhook;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const { url } = await this.policy.check(stored.tokenUrl, { requireHttps: true });
      const { headers, body } = tokenRequest(stored, clientSecret);
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const answer = await readCapped(response.body as AsyncIterable<Buffer>);
      if (response.statusCode < 200 || response.statusCode > 299) {
        return { problem: `token endpoint answered HTTP ${response.statusCode}` };
      }
      if (answer === null) return { problem: 'the token endpoint answer is too large' };
      return tokenFromAnswer(answer);
    } catch (error) {
      const refused = error instanceof UrlPolicyError ? error : policyViolationOf(error);
      if (refused) return { problem: `token URL rule violation: ${refused.message}` };
      return { problem: `token endpoint unreachable: ${networkErrorMessage(error, signal.aborted, timeoutMs)}` };
    }
  }
}

/** The answer as text, or null past ANSWER_MAX_BYTES (the rest is not read). */
async function readCapped(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > ANSWER_MAX_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A failure of the Redis connection itself (not of our own code): the cache is skipped. */
function isRedisError(error: unknown): boolean {
  const name = (error as { name?: string })?.name ?? '';
  const message = (error as { message?: string })?.message ?? '';
  return /Redis|MaxRetriesPerRequest|Connection/i.test(name) || /Connection is closed|ECONNREFUSED|Stream isn't writeable/i.test(message);
}
