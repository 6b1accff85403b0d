/**
 * Pure rules of an attempt's claim: why one could not be claimed.
 */

/**
 * Why a delivery job makes no attempt: the delivery is gone (subscription deleted), finished, the job is
 * a stale duplicate, another run holds this attempt's claim, its turn in its subscription's order has not
 * come (`waiting`: the end of the one before it wakes it), or its signing secret does not open.
 */
export type DroppedReason = 'missing' | 'finished' | 'stale' | 'in_flight' | 'waiting' | 'unsignable';

/** Why an attempt could not be claimed, from the delivery's row as it is now (undefined: gone). */
export function whyUnclaimed(
  row: { status: string; attemptCount: number; inFlight?: boolean; inOrder?: boolean } | undefined,
  expectedAttemptCount: number,
): DroppedReason {
  if (!row) return 'missing';
  if (row.status !== 'pending') return 'finished';
  if (row.attemptCount !== expectedAttemptCount) return 'stale';
  return row.inFlight === false && row.inOrder ? 'waiting' : 'in_flight';
}
