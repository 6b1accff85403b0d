import { matchesEventFilters } from '../../subscriptions/event-filter.rules';
import { OPERATIONAL_EVENTS } from '../../subscriptions/webhook-subscription.rules';

/** A delivery an event fans out to, before it gets its id. */
export interface FanOutDelivery {
  accountId: string;
  subscriptionId: string;
  eventId: string;
  eventName: string;
  /** For an ordered subscription (issue 31): the event's writing transaction, its delivery's place in the order. */
  orderTx?: string;
}

/**
 * Fan-out: one delivery per (event, candidate subscription) whose eventFilters match
 * the event's name, however many of its filters match. Candidates are the enabled subscriptions of
 * the event's account that existed when it was created (chosen in SQL); those of other events are ignored.
 * An operational event is never delivered to the subscription it is about.
 */
export function fanOut(
  events: ReadonlyArray<{ id: string; accountId: string; eventName: string; clientRequestId?: string; txId?: string }>,
  candidates: ReadonlyArray<{ eventId: string; subscriptionId: string; eventFilters: string[]; ordered?: boolean }>,
): FanOutDelivery[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  const seen = new Set<string>();
  const deliveries: FanOutDelivery[] = [];
  for (const candidate of candidates) {
    const event = byId.get(candidate.eventId);
    const pair = `${candidate.eventId} ${candidate.subscriptionId}`;
    if (!event || seen.has(pair) || !matchesEventFilters(candidate.eventFilters, event.eventName)) continue;
    if (OPERATIONAL_EVENTS.has(event.eventName) && event.clientRequestId === candidate.subscriptionId) continue;
    seen.add(pair);
    deliveries.push({
      accountId: event.accountId,
      subscriptionId: candidate.subscriptionId,
      eventId: event.id,
      eventName: event.eventName,
      orderTx: candidate.ordered ? event.txId : undefined,
    });
  }
  return deliveries;
}

/**
 * The deliveries of a fan-out in event order (then subscription): their ids are minted in this order, and
 * a subscription's batches claim by id, so its first attempts start in event order.
 */
export function inEventOrder<T extends { eventId: string; subscriptionId: string }>(deliveries: readonly T[]): T[] {
  return [...deliveries].sort((a, b) => cmp(a.eventId, b.eventId) || cmp(a.subscriptionId, b.subscriptionId));
}

/** One wake-up per subscription that got new deliveries, from its lowest new delivery id on (ordered: any of them in an order). */
export function wakesOf(
  created: ReadonlyArray<{ id: string; accountId: string; subscriptionId: string; ordered?: boolean }>,
): Array<{ accountId: string; subscriptionId: string; fromId: string; ordered?: boolean }> {
  const wakes = new Map<string, { accountId: string; subscriptionId: string; fromId: string; ordered?: boolean }>();
  for (const row of created) {
    const wake = wakes.get(row.subscriptionId);
    const ordered = row.ordered ? { ordered: true } : {};
    if (!wake) wakes.set(row.subscriptionId, { accountId: row.accountId, subscriptionId: row.subscriptionId, fromId: row.id, ...ordered });
    else {
      if (row.id < wake.fromId) wake.fromId = row.id;
      if (row.ordered) wake.ordered = true;
    }
  }
  return [...wakes.values()];
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
