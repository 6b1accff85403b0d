import { isTransactionConflict } from './pg-errors';

/** How many times a unit of work's transaction runs at most when PostgreSQL rolls it back for a conflict. */
export const TRANSACTION_TRIES = 3;
/** The Retry-After of the 503 when every try lost: the collision is over within a second or so. */
export const TRANSACTION_CONFLICT_RETRY_AFTER_SECONDS = 1;
/** The wait before the second try, doubled before each later one, times a jitter of 0.5-1.5 (so two victims part ways). */
const FIRST_RETRY_DELAY_MS = 20;

/**
 * Whether a transaction that failed with `error` on try `tried` (1: the first) runs again, and after how
 * long: only when PostgreSQL rolled it back for colliding with a concurrent one (a deadlock's victim, a
 * serialization failure: nothing committed, so the same work may run again), up to TRANSACTION_TRIES in
 * all. Any other error, or the last try's, goes to the caller. `random` is in [0, 1).
 */
export function transactionRetry(error: unknown, tried: number, random: number): { delayMs: number } | undefined {
  if (tried >= TRANSACTION_TRIES || !isTransactionConflict(error)) return undefined;
  return { delayMs: Math.round(FIRST_RETRY_DELAY_MS * 2 ** (tried - 1) * (0.5 + random)) };
}
