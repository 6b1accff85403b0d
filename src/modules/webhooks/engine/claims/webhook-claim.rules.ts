/**
 * Pure rules of an attempt's claim: why one could not be claimed.
 */

/**
 * Why a delivery job makes no attempt: the delivery is gone (subscription deleted), finished, the job is
 * a stale duplicate, another run holds this attempt's claim, or its signing secret does not open.
 */
export type DroppedReason = 'missing' | 'finished' | 'stale' | 'in_flight' | 'unsignable';

/** Why an attempt could not be claimed, from the delivery's row as it is now (undefined: gone). */
export function whyUnclaimed(row: { status: string; attemptCount: number } | undefined, expectedAttemptCount: number): DroppedReason {
  if (!row) return 'missing';
  if (row.status !== 'pending') return 'finished';
  if (row.attemptCount !== expectedAttemptCount) return 'stale';
  return 'in_flight';
}
