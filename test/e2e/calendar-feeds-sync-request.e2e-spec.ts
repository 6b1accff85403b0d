import { dropRedisPrefix } from '../support/test-env';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { CalendarServer, calendarScanEnv, icsFixture, startCalendarServer } from '../support/calendar-server';
import { createProperty } from '../support/properties';
import { createPrivateDatabase, PrivateDatabase } from '../support/private-services';
import { waitUntil } from '../support/wait';
import { startWorker, TestWorker } from '../support/worker';

/**
 * POST …/sync while a worker is syncing the feed is not lost: the running sync holds the feed's claim
 * (and its job id refuses the request's job), so it leaves the feed due when it finishes, and the scan
 * syncs the feed again at once instead of an interval later. The API queues its jobs where the worker
 * reads them, as in production; the scan reads the whole database, so this file has one of its own.
 */
describe('calendar feeds: a sync asked for while one runs', () => {
  const INTERVAL_MS = 600_000;
  let db: PrivateDatabase;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker;
  let calendars: CalendarServer;
  let api: ApiClient;

  beforeAll(async () => {
    db = await createPrivateDatabase('calendar_request');
    env = calendarScanEnv(db.url, 'calendar-request', INTERVAL_MS);
    t = await startApp(env);
    worker = await startWorker(env);
    calendars = await startCalendarServer();
    api = clientFor(t, await createAccount(t));
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await calendars?.close();
    await db?.drop();
    await dropRedisPrefix(t.config.redis, env.REDIS_PREFIX);
  });

  it('syncs the feed again right after the running sync, not an interval later', async () => {
    const { propertyId } = await createProperty(api);
    calendars.serve('/held.ics', { body: icsFixture('airbnb.ics') });
    const release = calendars.hold('/held.ics');
    const created = await api
      .post(`/v1/properties/${propertyId}/calendarFeeds`)
      .send({ url: `${calendars.url}/held.ics` })
      .expect(201);
    const id = created.body.id;

    // The new feed's sync has claimed it and waits on the calendar; the client asks for a sync now.
    await waitUntil(async () => calendars.hits('/held.ics') === 1, 20_000, 'the first sync reading the calendar');
    const accepted = await api.post(`/v1/calendarFeeds/${id}/sync`).expect(202);
    expect(accepted.body).toMatchObject({ id, status: 'pending', lastSyncedAt: null });
    release();

    // A second sync reads the calendar, and the one after it is at the interval (one extra sync, not a loop).
    const synced = await waitUntil(
      async () => {
        if (calendars.hits('/held.ics') < 2) return undefined;
        const feed = (await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body;
        return feed.status === 'ok' && Date.parse(feed.nextSyncAt) >= Date.parse(feed.lastSyncedAt) + INTERVAL_MS * 0.9 ? feed : undefined;
      },
      20_000,
      'the sync asked for during the first one',
    );
    expect(synced).toMatchObject({ bookingsImported: 2, lastError: null });
  });
});
