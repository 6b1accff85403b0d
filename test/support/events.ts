import { DataSource } from 'typeorm';
import type { EventEntity } from '../../src/modules/events/event.entity';
import type { EventResponse } from '../../src/modules/events/event.response';
import type { EventsService } from '../../src/modules/events/events.service';
import type { Tx } from '../../src/platform/database/unit-of-work';
import { ApiClient, TestApp } from './app';
import { sleep, waitUntil } from './wait';

/*
 * The feed only shows an event once every transaction that began before it has
 * ended (pg_snapshot_xmin, cluster-wide; see events.repository.ts), so a feed
 * read right after a commit can briefly miss it while unrelated transactions,
 * say of a parallel test file, are still open. Both helpers here wait for it,
 * which keeps tests that read the feed after a write exact.
 */

/**
 * Publishes an event outside the catalogue (a synthetic name and payload, such as `test.thing`): tests
 * of the log itself (order, visibility, rollback, delivery) need no real resource. Production code
 * calls EventsService.publish, which the typecheck holds to the catalogue.
 */
export function publishUnchecked(events: EventsService, tx: Tx, eventName: string, results: unknown[]): Promise<EventEntity> {
  const publish = events.publish.bind(events) as (tx: Tx, eventName: string, results: unknown[]) => Promise<EventEntity>;
  return publish(tx, eventName, results);
}

/** An event as GET /v1/events shows it, with results loose enough to assert on. */
export type FeedEvent = Omit<EventResponse, 'results'> & { results: any[] };

export interface FeedWait {
  /** Read until the feed shows at least this many events (default 0). */
  atLeast?: number;
  /** Read until this holds, e.g. the last event a test wrote is there (default: always). */
  until?: (events: FeedEvent[]) => boolean;
  /** Default 20 s: the horizon is the whole server's, so a long transaction of another run or database holds the feed back. */
  timeoutMs?: number;
}

/**
 * The account's whole feed, oldest first (every page), read again until it is what the
 * test waits for; past the time-out it is returned as it is, for the test's assertions to judge.
 */
export async function feedEvents(
  api: ApiClient,
  { atLeast = 0, until = () => true, timeoutMs = 20_000 }: FeedWait = {},
): Promise<FeedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await wholeFeed(api);
    if ((events.length >= atLeast && until(events)) || Date.now() > deadline) return events;
    await sleep(50);
  }
}

async function wholeFeed(api: ApiClient): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const res = await api.get(`/v1/events?limit=100${after ? `&after=${after}` : ''}`).expect(200);
    events.push(...res.body.data);
    if (!res.body.hasMore) return events;
    after = res.body.nextCursor;
  }
}

/** Waits until the feed shows this event (checked in the database, for tests that need one exact event). */
export async function waitUntilInFeed(t: TestApp, eventId: string, timeoutMs = 20_000): Promise<void> {
  const db = t.app.get(DataSource);
  const visible = async (): Promise<boolean> => {
    const [row] = await db.query(`SELECT tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS visible FROM events WHERE id = $1`, [eventId]);
    if (!row) throw new Error(`event ${eventId} does not exist (was its transaction rolled back?)`);
    return row.visible;
  };
  await waitUntil(visible, timeoutMs, `event ${eventId} to reach the feed`, 10);
}
