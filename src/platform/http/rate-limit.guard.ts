import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import Redis from 'ioredis';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { DomainError } from '../errors/domain-error';
import { REDIS } from '../redis/redis.module';
import { rateLimitHeaders, retryAfterSeconds } from './rate-limit.rules';
import { ApiRequest } from './request-context';

/** The burst allowance refills over this window, so the sustained rate stays near the per-second limit. */
const BURST_WINDOW_SECONDS = 10;
const DAY_SECONDS = 86_400;

/**
 * Per-key limits shared by every API process through Redis (rate-limiter-flexible):
 * a per-second window with a burst allowance on top (BurstyRateLimiter), and a daily
 * quota. If Redis is unreachable each process falls back to an in-memory limiter of
 * the same shape rather than failing requests.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly perSecond: BurstyRateLimiter;
  private readonly perDay: RateLimiterRedis;
  private readonly limits: AppConfig['rateLimit'];

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(REDIS) redis: Redis) {
    this.limits = config.rateLimit;
    const prefix = `${config.redisPrefix}:rl`;
    const store = (keyPrefix: string, points: number, duration: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:${keyPrefix}`,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
      });
    const burstExtra = this.limits.burst - this.limits.perSecond;
    this.perSecond = new BurstyRateLimiter(store('s', this.limits.perSecond, 1), store('b', Math.max(burstExtra, 0), BURST_WINDOW_SECONDS));
    this.perDay = store('d', this.limits.perDay, DAY_SECONDS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ApiRequest>();
    if (!req.caller) return true; // public route
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.caller.apiKeyId;

    const second = await this.consume(this.perSecond, key);
    const day = second.ok ? await this.consume(this.perDay, key) : await this.peek(key);
    res.set(
      rateLimitHeaders({
        limit: this.limits.perSecond,
        remaining: second.res.remainingPoints,
        resetMs: second.res.msBeforeNext,
        daily: { limit: this.limits.perDay, remaining: day.res.remainingPoints, resetMs: day.res.msBeforeNext },
      }),
    );
    const blocking = !second.ok ? second : !day.ok ? day : undefined;
    if (blocking) {
      const retryAfter = retryAfterSeconds(blocking.res.msBeforeNext);
      const which =
        blocking === second
          ? `${this.limits.perSecond} requests per second (burst ${this.limits.burst})`
          : `${this.limits.perDay} requests per day`;
      throw new DomainError(
        'rate_limited',
        'rate_limited',
        `Rate limit of ${which} exceeded for this API key; retry after ${retryAfter} s`,
        {},
        {
          'Retry-After': String(retryAfter),
        },
      );
    }
    return true;
  }

  private async consume(limiter: BurstyRateLimiter | RateLimiterRedis, key: string): Promise<{ ok: boolean; res: RateLimiterRes }> {
    try {
      return { ok: true, res: await limiter.consume(key) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { ok: false, res: rejection };
      throw rejection;
    }
  }

  private async peek(key: string): Promise<{ ok: boolean; res: RateLimiterRes }> {
    const res = await this.perDay.get(key);
    return { ok: true, res: res ?? new RateLimiterRes(this.limits.perDay, 0, 0) };
  }
}
