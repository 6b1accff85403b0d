import { DataSource } from 'typeorm';
import { CalendarSyncService, SyncResult } from '../../src/modules/calendar-feeds/calendar-sync.service';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { CalendarServer, icsFixture, startCalendarServer } from '../support/calendar-server';
import { feedEvents } from '../support/events';
import { createProperty } from '../support/properties';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';

/**
 * Calendar feeds (issue 14): failures are visible on the feed and as events, never silent; a 304
 * costs no parsing; two workers never sync one feed at once. As in calendar-feeds-sync, the API's
 * queued syncs never run (a Redis prefix no worker reads): the tests call the worker's service.
 */
const PREFIX = `pop-test-${process.env.TEST_RUN_ID}-calendar-failures`;

describe('calendar feed failures, 304 and racing workers', () => {
  let t: TestApp;
  let worker: TestWorker;
  let calendars: CalendarServer;
  let receiver: WebhookReceiver;
  let path = 0;

  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX: `${PREFIX}-api` });
    worker = await startWorker({ REDIS_PREFIX: `${PREFIX}-worker`, WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    calendars = await startCalendarServer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await calendars.close();
    await receiver.close();
  });

  const sync = (feedId: string, w: TestWorker = worker): Promise<SyncResult> => w.ctx.get(CalendarSyncService).sync(feedId);
  const feedOf = async (api: ApiClient, id: string) => (await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body;

  async function setup(route: Parameters<CalendarServer['serve']>[1] | null) {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const { propertyId } = await createProperty(api);
    const at = `/cal-${++path}.ics`;
    if (route) calendars.serve(at, route);
    const res = await api
      .post(`/v1/properties/${propertyId}/calendarFeeds`)
      .send({ url: `${calendars.url}${at}` })
      .expect(201);
    return { account, api, propertyId, feed: res.body as Record<string, any>, path: at };
  }

  async function bookingsOf(api: ApiClient, propertyId: string): Promise<Array<Record<string, any>>> {
    const res = await api
      .get(`/v1/bookings?propertyId=${propertyId}&dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z&limit=100`)
      .expect(200);
    return res.body.data;
  }

  it('a 304 to the conditional GET costs no parsing: the validators of the last 200 go back, nothing is written', async () => {
    const {
      api,
      propertyId,
      feed,
      path: at,
    } = await setup({
      body: icsFixture('airbnb.ics'),
      etag: '"airbnb-v1"',
      lastModified: 'Wed, 20 Nov 2030 08:15:00 GMT',
    });
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced', etag: '"airbnb-v1"' });
    const first = await feedOf(api, feed.id);

    expect(await sync(feed.id)).toEqual({ kind: 'notModified' });
    const requests = calendars.requests.filter((request) => request.path === at);
    expect(requests).toHaveLength(2);
    expect(requests[0].headers['if-none-match']).toBeUndefined();
    expect(requests[1].headers).toMatchObject({ 'if-none-match': '"airbnb-v1"', 'if-modified-since': 'Wed, 20 Nov 2030 08:15:00 GMT' });
    const second = await feedOf(api, feed.id);
    expect(second).toMatchObject({ status: 'ok', bookingsImported: 2, lastError: null });
    expect(Date.parse(second.lastSyncedAt)).toBeGreaterThanOrEqual(Date.parse(first.lastSyncedAt));
    expect(await bookingsOf(api, propertyId)).toHaveLength(2);
  });

  it('a 6 MB calendar fails the sync (5 MB cap) and leaves the bookings as they are', async () => {
    const { api, feed } = await setup({ body: Buffer.alloc(6 * 1024 * 1024, 'A') });
    expect(await sync(feed.id)).toEqual({
      kind: 'failed',
      error: 'The calendar could not be downloaded: the calendar is larger than 5 MB',
    });
    expect(await feedOf(api, feed.id)).toMatchObject({
      status: 'failing',
      lastError: 'The calendar could not be downloaded: the calendar is larger than 5 MB',
      consecutiveFailures: 1,
      lastSyncedAt: null,
    });
  });

  it.each([
    [
      'malformed ICS',
      { body: icsFixture('malformed.ics') },
      /^The calendar could not be read: the calendar is malformed and could not be read: /,
    ],
    [
      'an HTML page instead of a calendar',
      { body: '<!DOCTYPE html><html><body>Please sign in</body></html>', contentType: 'text/html' },
      /^The calendar could not be read: the link did not return an iCalendar file \(the response starts with "<!DOCTYPE html>/,
    ],
    ['an HTTP error', { body: 'gone', status: 410 }, /^The calendar could not be downloaded: the URL answered with HTTP 410$/],
    ['a missing calendar', null, /^The calendar could not be downloaded: the URL answered with HTTP 404$/],
  ])('%s sets failing with a lastError a host can act on', async (_what, route, message) => {
    const { api, feed } = await setup(route);
    await sync(feed.id);
    const failed = await feedOf(api, feed.id);
    expect(failed.status).toBe('failing');
    expect(failed.lastError).toMatch(message);
  });

  it('an unreachable URL sets failing', async () => {
    const { api, propertyId } = await setup(null);
    // A port nothing listens on: the calendar server's, closed.
    const closed = await startCalendarServer();
    const url = `${closed.url}/gone.ics`;
    await closed.close();
    const res = await api.post(`/v1/properties/${propertyId}/calendarFeeds`).send({ url }).expect(201);
    await sync(res.body.id);
    expect((await feedOf(api, res.body.id)).lastError).toBe(
      'The calendar could not be downloaded: the URL could not be reached: connection refused',
    );
  });

  it('a URL the outbound rules refuse fails the sync before any connection (ALLOW_PRIVATE_URLS off in the worker)', async () => {
    const strict = await startWorker({ REDIS_PREFIX: `${PREFIX}-strict`, ALLOW_PRIVATE_URLS: 'false', WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    try {
      const { api, propertyId } = await setup(null);
      // Accepted by this API (ALLOW_PRIVATE_URLS=true, as in development); a production worker refuses it.
      const url = `https://127.0.0.1:${new URL(calendars.url).port}/private.ics`;
      const feed = (await api.post(`/v1/properties/${propertyId}/calendarFeeds`).send({ url }).expect(201)).body;
      expect(await sync(feed.id, strict)).toEqual({
        kind: 'failed',
        error: 'The calendar could not be downloaded: host must be a domain name, not an IP address',
      });
      expect(await feedOf(api, feed.id)).toMatchObject({ status: 'failing', bookingsImported: 0 });
      expect(calendars.hits('/private.ics')).toBe(0);
    } finally {
      await strict.close();
    }
  });

  it('a calendar that does not answer within CALENDAR_TIMEOUT_MS fails the sync', async () => {
    const impatient = await startWorker({
      REDIS_PREFIX: `${PREFIX}-impatient`,
      CALENDAR_TIMEOUT_MS: '300',
      WEBHOOK_SWEEP_INTERVAL_MS: '0',
    });
    const { api, feed, path: at } = await setup({ body: icsFixture('airbnb.ics') });
    const release = calendars.hold(at);
    try {
      expect(await sync(feed.id, impatient)).toEqual({
        kind: 'failed',
        error: 'The calendar could not be downloaded: the URL did not answer within 0.3 s',
      });
      expect(await feedOf(api, feed.id)).toMatchObject({ status: 'failing', bookingsImported: 0 });
    } finally {
      release();
      await impatient.close();
    }
  });

  it('bad events inside a valid calendar are skipped and counted, the rest imported', async () => {
    const { api, propertyId, feed } = await setup({ body: icsFixture('bad-events.ics') });
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced', counts: { created: 1 } });
    expect((await bookingsOf(api, propertyId)).map((b) => b.title)).toEqual(['Good Stay']);
    const synced = await feedOf(api, feed.id);
    expect(synced).toMatchObject({ status: 'ok', lastError: null, skippedEvents: 3, bookingsImported: 1 });
    expect(synced.lastWarning).toBe(
      '3 event(s) skipped (UID no-end-1@pms.example: the event has no end (DTEND or DURATION); an event: the event has no UID; UID backwards-1@pms.example: the event ends (2030-10-25T09:00:00.000Z) before it starts (2030-10-30T15:00:00.000Z))',
    );
  });

  it('three failing syncs in a row emit calendarFeed.failing once, the next success calendarFeed.recovered (feed and webhooks)', async () => {
    const { account, api, feed, path: at } = await setup({ body: 'oops', status: 500 });
    await subscribe(api, `${receiver.url}/feed-health-${account.accountId}`, ['calendarFeed.*']);

    for (let i = 0; i < 4; i += 1) await sync(feed.id);
    expect(await feedOf(api, feed.id)).toMatchObject({ status: 'failing', consecutiveFailures: 4 });
    calendars.serve(at, { body: icsFixture('airbnb.ics') });
    await sync(feed.id);
    await sync(feed.id);
    expect(await feedOf(api, feed.id)).toMatchObject({ status: 'ok', consecutiveFailures: 0, lastError: null });

    const events = await feedEvents(api, { until: (all) => all.some((e) => e.eventName === 'calendarFeed.recovered') });
    const health = events.filter((e) => e.eventName.startsWith('calendarFeed.'));
    expect(health.map((e) => [e.eventName, e.results[0].status, e.results[0].consecutiveFailures])).toEqual([
      ['calendarFeed.failing', 'failing', 3],
      ['calendarFeed.recovered', 'ok', 0],
    ]);
    expect(health[0].results[0]).toMatchObject({
      id: feed.id,
      lastError: 'The calendar could not be downloaded: the URL answered with HTTP 500',
    });

    const delivered = await receiver.waitFor(2, 20_000, (request) => request.path === `/feed-health-${account.accountId}`);
    expect(delivered.map((request) => JSON.parse(request.rawBody).eventName).sort()).toEqual([
      'calendarFeed.failing',
      'calendarFeed.recovered',
    ]);
  });

  it('two workers racing one feed: one syncs, the other finds it claimed; the calendar is read once', async () => {
    const second = await startWorker({ REDIS_PREFIX: `${PREFIX}-second`, WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    try {
      const { api, propertyId, feed, path: at } = await setup({ body: icsFixture('airbnb.ics') });
      const release = calendars.hold(at);
      const results: SyncResult[] = [];
      const both = Promise.all([sync(feed.id, worker), sync(feed.id, second)].map((p) => p.then((r) => (results.push(r), r))));
      // The winner waits on the held calendar; the loser answers without touching it.
      await waitUntil(async () => results.length === 1 && calendars.hits(at) === 1, 20_000, 'one sync claimed, the other skipped');
      expect(results[0]).toEqual({ kind: 'busy' });
      release();
      expect((await both).map((r) => r.kind).sort()).toEqual(['busy', 'synced']);
      expect(calendars.hits(at)).toBe(1);
      expect(await bookingsOf(api, propertyId)).toHaveLength(2);
      // The claim is given back: the next sync runs.
      expect(await sync(feed.id, second)).toMatchObject({ kind: 'synced' });
    } finally {
      await second.close();
    }
  });

  it('POST …/sync while a sync runs leaves the feed due when that sync ends; one asked for before the claim is served by it', async () => {
    const { api, feed, path: at } = await setup({ body: icsFixture('airbnb.ics') });
    const interval = worker.config.calendar.syncIntervalMs;
    const nextAtInterval = (row: Record<string, any>) => Date.parse(row.nextSyncAt) >= Date.parse(row.lastSyncedAt) + interval * 0.9;

    // Asked for before the sync claims the feed: that sync reads the calendar after it, so it is the one asked for.
    await api.post(`/v1/calendarFeeds/${feed.id}/sync`).expect(202);
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced' });
    expect(nextAtInterval(await feedOf(api, feed.id))).toBe(true);

    // Asked for while a sync holds the feed (it may have read the calendar already): due again the moment it ends.
    const release = calendars.hold(at);
    const running = sync(feed.id);
    await waitUntil(async () => calendars.hits(at) === 2, 20_000, 'the sync waiting on the held calendar');
    await api.post(`/v1/calendarFeeds/${feed.id}/sync`).expect(202);
    release();
    expect(await running).toMatchObject({ kind: 'synced' });
    const due = await feedOf(api, feed.id);
    expect(due.nextSyncAt).toBe(due.lastSyncedAt);

    // The next sync serves the request (one extra sync, not a loop): the one after is at the interval again.
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced' });
    expect(calendars.hits(at)).toBe(3);
    expect(nextAtInterval(await feedOf(api, feed.id))).toBe(true);
  });

  it('a claim whose worker died frees the feed once its lease ends', async () => {
    const { feed } = await setup({ body: icsFixture('airbnb.ics') });
    const db = t.app.get(DataSource);
    await db.query(`UPDATE calendar_feeds SET sync_claimed_until = now() + interval '1 hour' WHERE id = $1`, [feed.id]);
    expect(await sync(feed.id)).toEqual({ kind: 'busy' });
    await db.query(`UPDATE calendar_feeds SET sync_claimed_until = now() - interval '1 second' WHERE id = $1`, [feed.id]);
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced' });
  });
});
