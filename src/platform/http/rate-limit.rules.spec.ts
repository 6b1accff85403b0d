import { rateLimitHeaders, retryAfterSeconds } from './rate-limit.rules';

describe('rate limit headers', () => {
  it('describes the per-second window and both policies', () => {
    const headers = rateLimitHeaders({
      limit: 100,
      remaining: 42,
      resetMs: 400,
      daily: { limit: 30000, remaining: 29000, resetMs: 3_600_500 },
    });
    expect(headers['X-RateLimit-Limit']).toBe('100');
    expect(headers['X-RateLimit-Remaining']).toBe('42');
    expect(headers['X-RateLimit-Reset']).toBe('1');
    expect(headers['RateLimit-Policy']).toBe('"burst";q=100;w=1, "daily";q=30000;w=86400');
    expect(headers.RateLimit).toBe('"burst";r=42;t=1, "daily";r=29000;t=3601');
  });

  it('never reports negative remaining requests', () => {
    const headers = rateLimitHeaders({ limit: 100, remaining: -3, resetMs: 0, daily: { limit: 10, remaining: -1, resetMs: 0 } });
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers.RateLimit).toBe('"burst";r=0;t=0, "daily";r=0;t=0');
  });

  it('asks clients to wait at least one second', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});
