/**
 * Pure rules of a subscription's batch (docs/webhooks.md, "Batches"): how many due attempts one claim
 * takes, how wake-ups merge into a running loop, and when the loop ends.
 */

/** Due attempts one claim takes at most. */
export const BATCH_MAX = 100;

/**
 * The size of the next claim: no more than the subscription admits in this process now (free slots plus
 * the waiters its measured call time allows within a second: `room`), no more than BATCH_MAX, and, when
 * paced, no more than a second of its rate (claims are not held waiting for turns far ahead).
 * 0: the subscription is saturated here (its wake-up is parked).
 */
export function batchClaimSize(input: { room: number; ratePerSecond: number | null; max?: number }): number {
  const max = input.max ?? BATCH_MAX;
  return Math.max(0, Math.min(max, input.room, input.ratePerSecond ?? max));
}

/** Where a loop's claims start when a wake-up joins it: the lower id (ids sort by creation), so nothing woken is skipped. */
export function mergeFrom(current: string, woken: string): string {
  return woken < current ? woken : current;
}

/**
 * A loop ends when its last claim came back short (nothing more is due from its range) and no wake-up
 * arrived while that claim ran (it may have missed the rows of a commit after its snapshot).
 */
export function loopEnds(claimed: number, size: number, wokenMeanwhile: boolean): boolean {
  return claimed < size && !wokenMeanwhile;
}
