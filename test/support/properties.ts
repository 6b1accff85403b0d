import { ApiClient } from './app';

/** Property fixtures for end-to-end tests (properties, pictures and every module that needs a property). */

let seq = 0;
/** Unique per test process and run: a base-36 time plus a counter. */
export const uniq = () => `${Date.now().toString(36)}-${++seq}`;

/** A valid POST /v1/properties body with a fresh sourceId. */
export function validProperty(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    sourceId: `src-${uniq()}`,
    name: 'Sea view flat',
    countryCode: 'FR',
    timeZone: 'Europe/Paris',
    location: { latitude: 48.8566, longitude: 2.3522 },
    beds: 2,
    bedrooms: 1,
    bathrooms: 1,
    ...overrides,
  };
}

export const pointersOf = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer).sort();

export interface FeedEvent {
  eventName: string;
  clientRequestId: string;
  apiRequestId: string;
  results: any[];
}

/**
 * The account's events. The feed only shows transactions older than every transaction still
 * running in the cluster (other test runs included), so wait until `count` events are visible.
 */
export async function eventsOf(api: ApiClient, count = 0): Promise<FeedEvent[]> {
  const until = Date.now() + 5000;
  for (;;) {
    const res = await api.get('/v1/events?limit=100').expect(200);
    if (res.body.data.length >= count || Date.now() > until) return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}
