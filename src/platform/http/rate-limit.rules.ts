/**
 * Header values for the per-key limits (pure, so the arithmetic is tested on its own).
 * X-RateLimit-* describe the per-second window; the IETF draft fields
 * (draft-ietf-httpapi-ratelimit-headers) name both policies.
 */
export interface LimitState {
  /** Requests allowed in the current second, counting the burst allowance. */
  limit: number;
  remaining: number;
  resetMs: number;
  daily: { limit: number; remaining: number; resetMs: number };
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

export function rateLimitHeaders(state: LimitState): Record<string, string> {
  const reset = seconds(state.resetMs);
  const dailyReset = seconds(state.daily.resetMs);
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(Math.max(0, state.remaining)),
    'X-RateLimit-Reset': String(reset),
    'RateLimit-Policy': `"burst";q=${state.limit};w=1, "daily";q=${state.daily.limit};w=86400`,
    RateLimit: `"burst";r=${Math.max(0, state.remaining)};t=${reset}, "daily";r=${Math.max(0, state.daily.remaining)};t=${dailyReset}`,
  };
}

/** Whole seconds until the limiting window frees a request (at least 1, so clients never spin). */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}
