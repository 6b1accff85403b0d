import type { DeliveryAttempt } from '../../webhook-delivery.entity';
import type { AttemptOutcome, AttemptReport } from '../sending/webhook-delivery.rules';

/**
 * What happens to a delivery after an attempt (spec 3.3, 6.1 rule 1): pure, so the whole
 * table is unit-tested. Retry n (n = 1 for the first retry) waits base × 2^(n-1).
 */

/** Consecutive permanently failed deliveries that disable a subscription (spec 3.4; its disabledReason: AUTO_DISABLED_REASON). */
export const AUTO_DISABLE_THRESHOLD = 10;
/** A Retry-After never delays the next attempt more than this. */
export const RETRY_AFTER_MAX_MS = 3_600_000;

/** Delay before retry number `retryNumber` (1-based). */
export function retryDelayMs(baseMs: number, retryNumber: number): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1) throw new Error(`retryNumber must be an integer ≥ 1, got ${retryNumber}`);
  return baseMs * 2 ** (retryNumber - 1);
}

/**
 * A Retry-After header (delta-seconds or an HTTP-date) as milliseconds from `now`; null when it is
 * neither. A date in the past is 0.
 */
export function parseRetryAfter(value: string, now: Date): number | null {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** The delay a Retry-After sets: never sooner than the schedule's, never past an hour (unless the schedule's is longer). */
export function clampRetryAfter(retryAfterMs: number, scheduleMs: number): number {
  return Math.max(scheduleMs, Math.min(retryAfterMs, RETRY_AFTER_MAX_MS));
}

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
  /** The answer's Retry-After in ms (429 and 503 only): sets the delay, clamped by clampRetryAfter. */
  retryAfterMs?: number | null;
}

export function nextDeliveryState({
  outcome,
  attemptCount,
  maxRetries,
  retryBaseMs,
  now,
  retryAfterMs,
}: NextStateInput): NextDeliveryState {
  if (outcome === 'ok') return { status: 'delivered', nextRetryAt: null };
  const retriesSpent = attemptCount - 1;
  if (outcome === 'fatal' || outcome === 'gone' || retriesSpent >= maxRetries) return { status: 'failed_permanent', nextRetryAt: null };
  const retryNumber = retriesSpent + 1;
  const scheduled = outcome === 'lost' ? 0 : retryDelayMs(retryBaseMs, retryNumber);
  const delayMs = retryAfterMs != null && outcome === 'failed' ? clampRetryAfter(retryAfterMs, scheduled) : scheduled;
  return { status: 'pending', nextRetryAt: new Date(now.getTime() + delayMs), delayMs, retryNumber };
}

/**
 * Effect of a finished delivery on the subscription's consecutive-failure counter (spec 3.4, 6.1 rule 5):
 * a delivered non-test delivery resets it, a permanently failed one counts; test deliveries never count,
 * nor do deliveries stopped because the subscription was already disabled or ended by a lost attempt
 * (`uncounted`: not the receiver's failure). A 410 Gone of a non-test delivery (`gone`) disables the
 * subscription at once. A failure answered with Retry-After counts at most once per back-pressure
 * window: the repository decides that against the subscription's row (recordCountedFailure).
 */
export function failureCounterEffect(
  status: NextDeliveryState['status'],
  delivery: { test: boolean },
  uncounted = false,
  outcome?: AttemptOutcome,
): 'reset' | 'increment' | 'none' | 'gone' {
  if (delivery.test || uncounted) return 'none';
  if (outcome === 'gone') return 'gone';
  if (status === 'delivered') return 'reset';
  if (status === 'failed_permanent') return 'increment';
  return 'none';
}

/** An attempt as it ended, and the delivery it belongs to (as claimed before the attempt). */
export interface SettleInput {
  report: AttemptReport;
  /** When the attempt started, and how long it took (null: unknown, a lost attempt). */
  at: Date;
  durationMs: number | null;
  /** Not the receiver's failure: never counts towards auto-disable. */
  uncounted: boolean;
  delivery: { attemptCount: number; retryBase: number; test: boolean; maxRetries: number };
  retryBaseMs: number;
  now: Date;
}

/** What to record of a settled attempt: the delivery's next state, the counter's change, the attempt's log entry. */
export interface SettledAttempt {
  /** The delivery's attempts including this one. */
  attemptCount: number;
  state: NextDeliveryState;
  counter: ReturnType<typeof failureCounterEffect>;
  attempt: DeliveryAttempt;
  /** Until when the subscription's answers are back-pressure (a counted failure with Retry-After); null otherwise. */
  backpressureUntil: Date | null;
}

/**
 * Settles an attempt: the delivery's next state (the retry budget counts from the current round, since
 * a retried or replayed delivery starts a new one), the failure counter's change, and the attempt's
 * entry in the delivery log, with the delay a Retry-After answer set, as honoured (or as it would
 * have been, after the last attempt).
 */
export function settleAttempt({ report, at, durationMs, uncounted, delivery, retryBaseMs, now }: SettleInput): SettledAttempt {
  const attemptCount = delivery.attemptCount + 1;
  const attemptsInRound = attemptCount - delivery.retryBase;
  const retryAfterMs = report.retryAfter ? parseRetryAfter(report.retryAfter, now) : null;
  const state = nextDeliveryState({
    outcome: report.outcome,
    attemptCount: attemptsInRound,
    maxRetries: delivery.maxRetries,
    retryBaseMs,
    now,
    retryAfterMs,
  });
  const counter = failureCounterEffect(state.status, delivery, uncounted, report.outcome);
  const backpressureMs =
    retryAfterMs === null
      ? null
      : state.status === 'pending'
        ? state.delayMs
        : clampRetryAfter(retryAfterMs, retryDelayMs(retryBaseMs, attemptsInRound));
  const attempt: DeliveryAttempt = {
    at: at.toISOString(),
    responseCode: report.responseCode,
    responseSnippet: report.responseSnippet,
    errorMessage: counter === 'gone' ? `${report.errorMessage}: the receiver is gone, subscription disabled` : report.errorMessage,
    durationMs,
    errorClass: report.errorClass ?? null,
    resolvedIp: report.resolvedIp ?? null,
    timings: report.timings ?? null,
    retryAfterMs: backpressureMs,
  };
  const backpressureUntil = backpressureMs !== null && counter === 'increment' ? new Date(now.getTime() + backpressureMs) : null;
  return { attemptCount, state, counter, attempt, backpressureUntil };
}
