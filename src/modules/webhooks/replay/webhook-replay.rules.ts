import { matchesEventFilters } from '../subscriptions/event-filter.rules';
import { OPERATIONAL_EVENTS } from '../subscriptions/webhook-subscription.rules';
import type { DeliveryStatus } from '../webhook-delivery.entity';

/**
 * Pure rules of a webhook replay (issue 13): which events of a batch it emits, when each is due (the
 * rate bound), and the window it accepts.
 */

export interface ReplayCandidate {
  id: string;
  eventName: string;
  clientRequestId: string;
}

export interface ReplaySelection<E extends ReplayCandidate> {
  /** Events to deliver again (or for the first time), in the batch's order. */
  emit: E[];
  /** Events of the replay passed over: their delivery is on its way (pending), or delivered while onlyFailed. */
  skipped: number;
}

/**
 * The events of a batch the replay concerns are those its filters match, except operational events
 * about this subscription (never delivered to it). Of those, it emits each whose delivery to the
 * subscription is not pending (a pending one is on its way), and with `onlyFailed` only those whose
 * delivery ended failed_permanent or never happened.
 */
export function selectForReplay<E extends ReplayCandidate>(
  events: readonly E[],
  options: { subscriptionId: string; eventFilters: readonly string[]; onlyFailed: boolean; statuses: ReadonlyMap<string, DeliveryStatus> },
): ReplaySelection<E> {
  const emit: E[] = [];
  let skipped = 0;
  for (const event of events) {
    if (!concerns(event, options)) continue;
    const status = options.statuses.get(event.id);
    if (status === 'pending' || (options.onlyFailed && status === 'delivered')) skipped++;
    else emit.push(event);
  }
  return { emit, skipped };
}

/** Whether the replay is about this event at all (its filters match and it may go to this subscription). */
export function concerns(event: ReplayCandidate, options: { subscriptionId: string; eventFilters: readonly string[] }): boolean {
  if (!matchesEventFilters([...options.eventFilters], event.eventName)) return false;
  return !(OPERATIONAL_EVENTS.has(event.eventName) && event.clientRequestId === options.subscriptionId);
}

/** When each of `count` deliveries is due so that no more than `ratePerSecond` start per second, from `start`. */
export function dueTimes(count: number, ratePerSecond: number, start: number): number[] {
  const interval = 1000 / ratePerSecond;
  return Array.from({ length: count }, (_, i) => Math.round(start + i * interval));
}

export type ReplayWindowProblem = 'untilNotAfterSince' | 'sinceBeforeRetention';

/**
 * The window a replay covers: [since, min(until ?? now, now)); refused when empty or when `since` is
 * older than the event log keeps (retentionDays).
 */
export function replayWindow(
  since: Date,
  until: Date | undefined,
  now: Date,
  retentionDays: number,
): { since: Date; until: Date } | { problem: ReplayWindowProblem } {
  const end = until && until.getTime() < now.getTime() ? until : now;
  if (since.getTime() < now.getTime() - retentionDays * 24 * 3600 * 1000) return { problem: 'sinceBeforeRetention' };
  if (end.getTime() <= since.getTime()) return { problem: 'untilNotAfterSince' };
  return { since, until: end };
}
