import { dropRedisPrefix } from '../support/test-env';
import { Scheduler } from '../../src/platform/scheduling/scheduler';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { CalendarServer, calendarScanEnv, icsFixture, startCalendarServer } from '../support/calendar-server';
import { createProperty } from '../support/properties';
import { createPrivateDatabase, PrivateDatabase } from '../support/private-services';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';

/**
 * Calendar feeds as production runs them: nobody calls a sync; the worker's scan finds due feeds and
 * its processor syncs them, every CALENDAR_SYNC_INTERVAL_MS, and the bookings' webhooks follow. The API
 * runs on a Redis prefix no worker reads (the syncs its creates queue never run), so every sync here
 * comes from the scan. The scan reads the whole database, so this file has one of its own.
 */
describe('calendar feeds: the scheduled scan', () => {
  const INTERVAL_MS = 1_500;
  let db: PrivateDatabase;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker;
  let calendars: CalendarServer;
  let receiver: WebhookReceiver;
  let account: TestAccount;
  let api: ApiClient;

  beforeAll(async () => {
    db = await createPrivateDatabase('calendar');
    env = calendarScanEnv(db.url, 'calendar-scheduled', INTERVAL_MS);
    t = await startApp({ ...env, REDIS_PREFIX: `${env.REDIS_PREFIX}-api` });
    worker = await startWorker(env);
    calendars = await startCalendarServer();
    receiver = await startReceiver();
    account = await createAccount(t);
    api = clientFor(t, account);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await calendars?.close();
    await receiver?.close();
    await db?.drop();
    await dropRedisPrefix(t.config.redis, `${env.REDIS_PREFIX}-api`);
  });

  it('runs the scan in the worker', () => {
    expect(worker.ctx.get(Scheduler).taskNames()).toContain('calendar-feeds-due');
  });

  it('syncs a new feed, then again every interval (spread within its last tenth), and the webhooks follow', async () => {
    await subscribe(api, `${receiver.url}/hooks`, ['booking.*', 'reminder.*']);
    const { propertyId } = await createProperty(api);
    calendars.serve('/airbnb.ics', { body: icsFixture('airbnb.ics') });
    const created = await api
      .post(`/v1/properties/${propertyId}/calendarFeeds`)
      .send({ url: `${calendars.url}/airbnb.ics` })
      .expect(201);
    const id = created.body.id;

    const first = await waitUntil(
      async () => {
        const feed = (await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body;
        return feed.status === 'ok' ? feed : undefined;
      },
      20_000,
      'the scan to sync the new feed',
    );
    expect(first.bookingsImported).toBe(2);
    const wait = Date.parse(first.nextSyncAt) - Date.parse(first.lastSyncedAt);
    expect(wait).toBeGreaterThanOrEqual(INTERVAL_MS * 0.9);
    expect(wait).toBeLessThanOrEqual(INTERVAL_MS);

    // The next interval's sync reads the calendar again (no ETag here, so a full read; nothing changes).
    await waitUntil(async () => calendars.hits('/airbnb.ics') >= 2, 20_000, 'the next sync');

    // The stays' booking.create and reminder.create reached the subscription.
    const delivered = await receiver.waitFor(4, 20_000);
    expect(delivered.map((request) => JSON.parse(request.rawBody).eventName).sort()).toEqual([
      'booking.create',
      'booking.create',
      'reminder.create',
      'reminder.create',
    ]);
  });
});
