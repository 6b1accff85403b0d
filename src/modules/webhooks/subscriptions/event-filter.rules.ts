/**
 * Event names and webhook event filters (spec 2.7, 4.8 rule 1, 6.3). Pure rules, shared by the
 * subscriptions API (validation) and the dispatcher (matching).
 *
 * - An event name is `<resource>.<verb>`: two or more segments of ASCII letters/digits joined by
 *   single dots (`property.create`, `jobRequest.completed`). Case-sensitive.
 * - A filter is an exact event name, a prefix wildcard (`jobRequest.*`: one or more segments then
 *   `.*`) or `*` alone. Partial wildcards (`job*`, `jobRequest.c*`) and `**` are not filters.
 * - Both are at most EVENT_NAME_MAX_LENGTH characters, which bounds the stored filter list.
 */
export const EVENT_NAME_MAX_LENGTH = 100;

const SEGMENT = '[A-Za-z0-9]+';
const EVENT_NAME = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})+$`);
const PREFIX_WILDCARD = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*\\.\\*$`);

export const MATCH_ALL_FILTER = '*';

export function isValidEventName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= EVENT_NAME_MAX_LENGTH && EVENT_NAME.test(name);
}

export function isValidEventFilter(filter: unknown): filter is string {
  if (typeof filter !== 'string' || filter.length > EVENT_NAME_MAX_LENGTH) return false;
  return filter === MATCH_ALL_FILTER || EVENT_NAME.test(filter) || PREFIX_WILDCARD.test(filter);
}

/** True when one filter selects the event. `jobRequest.*` matches `jobRequest.x` (any depth), not `jobRequest` or `jobRequestX.y`. */
export function matchesEventFilter(filter: string, eventName: string): boolean {
  if (filter === MATCH_ALL_FILTER) return true;
  if (filter.endsWith('.*')) {
    const prefix = filter.slice(0, -1); // keeps the dot: "jobRequest."
    return eventName.length > prefix.length && eventName.startsWith(prefix);
  }
  return filter === eventName;
}

/** True when any of the subscription's filters selects the event. */
export function matchesEventFilters(filters: readonly string[], eventName: string): boolean {
  return filters.some((filter) => matchesEventFilter(filter, eventName));
}

/**
 * The filters that select none of `names` (an exact name not among them, a prefix none starts with): in a
 * form a person filled in, most likely a typo. `*` selects every name.
 */
export function filtersSelectingNothing(filters: readonly string[], names: readonly string[]): string[] {
  return filters.filter((filter) => !names.some((name) => matchesEventFilter(filter, name)));
}
