import { DomainError } from '../errors/domain-error';
import { describeRate, KeyDecision, KeyLimits, BurstyLimit, retryAfterSeconds } from './rate-limit.rules';

/** 429 rate_limited with Retry-After; the per-key headers are set on the response separately. */
export class RateLimitedError extends DomainError {
  constructor(detail: string, msLeft: number) {
    const retryAfter = retryAfterSeconds(msLeft);
    super('rate_limited', 'rate_limited', `${detail}; retry after ${retryAfter} s`, {}, { 'Retry-After': String(retryAfter) });
  }
}

/** A key past its per-second limit (with burst) or its daily quota. */
export function keyLimitError(decision: KeyDecision, limits: KeyLimits): RateLimitedError {
  if (decision.outcome === 'day') {
    return new RateLimitedError(`Rate limit of ${limits.perDay} requests per day exceeded for this API key`, decision.dayMsLeft);
  }
  const burst = limits.perWindow + limits.burstExtra;
  return new RateLimitedError(
    `Rate limit of ${describeRate(limits.perWindow, limits.windowMs)} (burst ${burst}) exceeded for this API key`,
    decision.windowMsLeft,
  );
}

/** An address past its limit of failed authentications (no key is known, so no per-key headers). */
export function failedAuthLimitError(msLeft: number, limit: BurstyLimit): RateLimitedError {
  return new RateLimitedError(
    `Too many requests with a missing or invalid x-api-key from this address (limit ${describeRate(limit.perWindow, limit.windowMs)}, burst ${limit.perWindow + limit.burstExtra})`,
    msLeft,
  );
}
