/**
 * What happens to a delivery after an attempt (spec 3.3, 6.1 rule 1): pure, so the whole
 * table is unit-tested. Retry n (n = 1 for the first retry) waits base × 2^(n-1).
 */

export const AUTO_DISABLE_THRESHOLD = 10;
export const AUTO_DISABLED_REASON = 'auto_disabled_after_repeated_delivery_failures';

/** Delay before retry number `retryNumber` (1-based). */
export function retryDelayMs(baseMs: number, retryNumber: number): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1) throw new Error(`retryNumber must be an integer ≥ 1, got ${retryNumber}`);
  return baseMs * 2 ** (retryNumber - 1);
}

/**
 * How an attempt ended: `ok` = any 2xx in time; `failed` = non-2xx, time-out or network error;
 * `fatal` = never retry (URL rule broken, subscription disabled); `lost` = its worker died before
 * recording it (the outcome is unknown; the receiver is not to blame, so the next attempt goes at once).
 */
export type AttemptOutcome = 'ok' | 'failed' | 'fatal' | 'lost';

export type NextDeliveryState =
  | { status: 'delivered'; nextRetryAt: null }
  | { status: 'pending'; nextRetryAt: Date; delayMs: number; retryNumber: number }
  | { status: 'failed_permanent'; nextRetryAt: null };

export interface NextStateInput {
  outcome: AttemptOutcome;
  /** Attempts made including this one (1 after the first attempt). */
  attemptCount: number;
  /** The subscription's maxRetries (0-10): total attempts allowed = maxRetries + 1. */
  maxRetries: number;
  retryBaseMs: number;
  now: Date;
}

export function nextDeliveryState({ outcome, attemptCount, maxRetries, retryBaseMs, now }: NextStateInput): NextDeliveryState {
  if (outcome === 'ok') return { status: 'delivered', nextRetryAt: null };
  const retriesSpent = attemptCount - 1;
  if (outcome === 'fatal' || retriesSpent >= maxRetries) return { status: 'failed_permanent', nextRetryAt: null };
  const retryNumber = retriesSpent + 1;
  const delayMs = outcome === 'lost' ? 0 : retryDelayMs(retryBaseMs, retryNumber);
  return { status: 'pending', nextRetryAt: new Date(now.getTime() + delayMs), delayMs, retryNumber };
}

/**
 * Effect of a finished delivery on the subscription's consecutive-failure counter (spec 3.4, 6.1 rule 5):
 * a delivered non-test delivery resets it, a permanently failed one counts; test deliveries never count,
 * nor do deliveries stopped because the subscription was already disabled or ended by a lost attempt
 * (`uncounted`: not the receiver's failure).
 */
export function failureCounterEffect(
  status: NextDeliveryState['status'],
  delivery: { test: boolean },
  uncounted = false,
): 'reset' | 'increment' | 'none' {
  if (delivery.test || uncounted) return 'none';
  if (status === 'delivered') return 'reset';
  if (status === 'failed_permanent') return 'increment';
  return 'none';
}
