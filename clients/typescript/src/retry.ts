import { randomUUID } from 'node:crypto';
import { IDEMPOTENT_POSTS } from './generated/routes';

export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  maxRetries?: number;
  /** Longest wait between attempts, whatever Retry-After says (default 30 s). */
  maxDelayMs?: number;
  /** Wait when the answer has no usable Retry-After: baseDelayMs × 2^attempt, with jitter (default 500 ms). */
  baseDelayMs?: number;
}

/** The statuses that mean "not done, try again later" (rate limited; a dependency down): the only ones retried. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export type Fetch = (request: Request) => Promise<Response>;

/**
 * A fetch that retries 429 and 503 answers, waiting as Retry-After says (seconds or an HTTP date; capped
 * at maxDelayMs). A create route that takes an Idempotency-Key (read from the document at build time)
 * gets one generated once, before the first attempt, and the same key on every retry: if the first
 * attempt was done after all (its answer lost), the retry replays its result instead of creating twice.
 * A key the caller set is kept.
 */
export function retryingFetch(base: Fetch, options: RetryOptions = {}, sleep = delay): Fetch {
  const { maxRetries = 3, maxDelayMs = 30_000, baseDelayMs = 500 } = options;
  return async (request) => {
    if (request.method === 'POST' && !request.headers.has('idempotency-key') && takesIdempotencyKey(request.url)) {
      request.headers.set('idempotency-key', randomUUID());
    }
    for (let attempt = 0; ; attempt++) {
      // A Request's body can be read once: each attempt sends a copy.
      const response = await base(attempt < maxRetries ? request.clone() : request);
      if (!RETRIED_STATUSES.has(response.status) || attempt >= maxRetries) return response;
      await response.body?.cancel();
      await sleep(retryDelayMs(response.headers.get('retry-after'), attempt, { maxDelayMs, baseDelayMs }));
    }
  };
}

function takesIdempotencyKey(url: string): boolean {
  const { pathname } = new URL(url);
  return IDEMPOTENT_POSTS.some((pattern) => pattern.test(pathname));
}

/** How long to wait before retry `attempt` + 1: Retry-After when the answer has one, else exponential with jitter; never above maxDelayMs. */
export function retryDelayMs(
  retryAfter: string | null,
  attempt: number,
  { maxDelayMs, baseDelayMs }: { maxDelayMs: number; baseDelayMs: number },
  now = Date.now(),
): number {
  const given = parseRetryAfter(retryAfter, now);
  const wait = given ?? baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
  return Math.min(Math.max(0, wait), maxDelayMs);
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
