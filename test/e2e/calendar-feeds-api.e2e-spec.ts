import { ApiClient, clientFor, createAccount, startApp, TestApp, twoAccounts } from '../support/app';
import { CalendarServer, icsFixture, startCalendarServer } from '../support/calendar-server';
import { expectProblem } from '../support/problem';
import { createProperty } from '../support/properties';
import { waitUntil } from '../support/wait';
import { startWorker, TestWorker } from '../support/worker';

/** The calendar feed routes (issue 14), with a real worker on the app's Redis prefix running the syncs they queue. */
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-calendar-api`;

describe('calendar feed routes', () => {
  let t: TestApp;
  let worker: TestWorker;
  let calendars: CalendarServer;
  let api: ApiClient;
  let other: ApiClient;
  let propertyId: string;

  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX });
    worker = await startWorker({ REDIS_PREFIX, WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    calendars = await startCalendarServer();
    calendars.serve('/airbnb.ics', { body: icsFixture('airbnb.ics') });
    ({ api, otherApi: other } = await twoAccounts(t));
    propertyId = (await createProperty(api)).propertyId;
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await calendars.close();
  });

  let n = 0;
  const url = () => `${calendars.url}/missing-${++n}.ics`;
  const feedsPath = (id = propertyId) => `/v1/properties/${id}/calendarFeeds`;

  it('creates a feed with the defaults, lists, reads, updates and deletes it', async () => {
    const link = url();
    const created = await api.post(feedsPath()).send({ url: link }).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cal_[0-9A-HJKMNP-TV-Z]{26}$/),
      propertyId,
      url: link,
      label: null,
      checkInTime: '16:00',
      checkOutTime: '11:00',
      defaultNumberOfGuests: 1,
      skipBlocked: true,
      status: 'pending',
      lastSyncedAt: null,
      lastError: null,
      lastWarning: null,
      skippedEvents: 0,
      bookingsImported: 0,
      consecutiveFailures: 0,
      nextSyncAt: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id;
    const listed = await api.get(feedsPath()).expect(200);
    expect(listed.body).toMatchObject({ nextCursor: null, hasMore: false });
    expect(listed.body.data.map((feed: { id: string }) => feed.id)).toContain(id);

    const patched = await api
      .patch(`/v1/calendarFeeds/${id}`)
      .send({ label: 'Vrbo', checkInTime: '15:30', checkOutTime: '10:00', defaultNumberOfGuests: 4, skipBlocked: false })
      .expect(200);
    expect(patched.body).toMatchObject({
      label: 'Vrbo',
      checkInTime: '15:30',
      checkOutTime: '10:00',
      defaultNumberOfGuests: 4,
      skipBlocked: false,
    });
    expect((await api.patch(`/v1/calendarFeeds/${id}`).send({ label: null }).expect(200)).body.label).toBeNull();
    expect((await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body).toMatchObject({ label: null, checkInTime: '15:30' });

    await api.delete(`/v1/calendarFeeds/${id}`).expect(204);
    expectProblem(await api.get(`/v1/calendarFeeds/${id}`), 404, 'notFound');
    expectProblem(await api.delete(`/v1/calendarFeeds/${id}`), 404, 'notFound');
  });

  it('POST …/sync answers 202 and the worker syncs the feed', async () => {
    const created = await api
      .post(feedsPath())
      .send({ url: `${calendars.url}/airbnb.ics`, label: 'Airbnb' })
      .expect(201);
    const accepted = await api.post(`/v1/calendarFeeds/${created.body.id}/sync`).expect(202);
    expect(accepted.body.id).toBe(created.body.id);
    const synced = await waitUntil(
      async () => {
        const feed = (await api.get(`/v1/calendarFeeds/${created.body.id}`).expect(200)).body;
        return feed.status === 'ok' ? feed : undefined;
      },
      30_000,
      'the feed synced by the worker',
    );
    expect(synced).toMatchObject({ bookingsImported: 2, lastError: null, lastSyncedAt: expect.any(String) });
    await api.delete(`/v1/calendarFeeds/${created.body.id}`).expect(204);
  });

  it('an Idempotency-Key replays the create', async () => {
    const body = { url: url() };
    const first = await api.post(feedsPath()).set('Idempotency-Key', `cal-${n}`).send(body).expect(201);
    const replay = await api.post(feedsPath()).set('Idempotency-Key', `cal-${n}`).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    await api.delete(`/v1/calendarFeeds/${first.body.id}`).expect(204);
  });

  it.each([
    [{}, '#/url'],
    [{ url: 42 }, '#/url'],
    [{ url: 'https://a.example/x.ics', checkInTime: '25:00' }, '#/checkInTime'],
    [{ url: 'https://a.example/x.ics', checkOutTime: '9:00' }, '#/checkOutTime'],
    [{ url: 'https://a.example/x.ics', checkInTime: null }, '#/checkInTime'],
    [{ url: 'https://a.example/x.ics', defaultNumberOfGuests: 0 }, '#/defaultNumberOfGuests'],
    [{ url: 'https://a.example/x.ics', defaultNumberOfGuests: 51 }, '#/defaultNumberOfGuests'],
    [{ url: 'https://a.example/x.ics', defaultNumberOfGuests: 1.5 }, '#/defaultNumberOfGuests'],
    [{ url: 'https://a.example/x.ics', skipBlocked: 'yes' }, '#/skipBlocked'],
    [{ url: 'https://a.example/x.ics', label: '' }, '#/label'],
  ])('refuses %j at %s', async (body, pointer) => {
    const problem = expectProblem(await api.post(feedsPath()).send(body), 400, 'validationFailed');
    expect(problem.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('refuses a url longer than 2048 characters once percent-encoded (400, not a 500 from the url index)', async () => {
    // 2,000 distinct CJK characters: within the 2048 the DTO counts, about 18,000 once percent-encoded (and incompressible).
    const path = Array.from({ length: 2000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
    const problem = expectProblem(await api.post(feedsPath()).send({ url: `${calendars.url}/${path}` }), 400, 'invalidCalendarFeedUrl');
    expect(problem.detail).toBe(
      'Calendar feed url is longer than 2048 characters once normalised (characters outside ASCII count as their percent-encoding)',
    );
  });

  it('refuses unknown fields, the url on PATCH included', async () => {
    expectProblem(await api.post(feedsPath()).send({ url: url(), colour: 'red' }), 400, 'objectStrict');
    const created = await api.post(feedsPath()).send({ url: url() }).expect(201);
    expectProblem(await api.patch(`/v1/calendarFeeds/${created.body.id}`).send({ url: url() }), 400, 'objectStrict');
    expectProblem(await api.patch(`/v1/calendarFeeds/${created.body.id}`).send({ skipBlocked: null }), 400, 'validationFailed');
    await api.delete(`/v1/calendarFeeds/${created.body.id}`).expect(204);
  });

  it('at most 10 feeds per property, one per url', async () => {
    const { propertyId: own } = await createProperty(api);
    const link = url();
    const first = await api.post(feedsPath(own)).send({ url: link }).expect(201);
    const duplicate = expectProblem(await api.post(feedsPath(own)).send({ url: link }), 409, 'conflict');
    expect(duplicate.existingId).toBe(first.body.id);
    for (let i = 1; i < 10; i += 1) await api.post(feedsPath(own)).send({ url: url() }).expect(201);
    const eleventh = expectProblem(await api.post(feedsPath(own)).send({ url: url() }), 409, 'conflict');
    expect(eleventh.detail).toBe(`Property ${own} already has 10 calendar feeds, the most it can have; delete one first`);
    expect((await api.get(feedsPath(own)).expect(200)).body.data).toHaveLength(10);
  });

  it("tenancy: another account's property and feeds are 404s", async () => {
    const created = await api.post(feedsPath()).send({ url: url() }).expect(201);
    const id = created.body.id;
    expectProblem(await other.get(`/v1/calendarFeeds/${id}`), 404, 'notFound');
    expectProblem(await other.patch(`/v1/calendarFeeds/${id}`).send({ label: 'x' }), 404, 'notFound');
    expectProblem(await other.delete(`/v1/calendarFeeds/${id}`), 404, 'notFound');
    expectProblem(await other.post(`/v1/calendarFeeds/${id}/sync`), 404, 'notFound');
    expectProblem(await other.get(feedsPath()), 404, 'notFound');
    expectProblem(await other.post(feedsPath()).send({ url: url() }), 404, 'notFound');
    expectProblem(await api.get(feedsPath('prop_00000000000000000000000000')), 404, 'notFound');
    expectProblem(await api.get('/v1/calendarFeeds/cal_00000000000000000000000000'), 404, 'notFound');
    expectProblem(await api.get('/v1/calendarFeeds/not-an-id'), 404, 'notFound');
    expect((await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body.label).toBeNull();
  });

  it('deleting the property deletes its feeds', async () => {
    const { propertyId: doomed } = await createProperty(api);
    const created = await api.post(feedsPath(doomed)).send({ url: url() }).expect(201);
    await api.delete(`/v1/properties/${doomed}`).expect(204);
    expectProblem(await api.get(`/v1/calendarFeeds/${created.body.id}`), 404, 'notFound');
  });
});

describe('calendar feed URL rules without ALLOW_PRIVATE_URLS', () => {
  let t: TestApp;
  let api: ApiClient;
  let propertyId: string;
  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX: `${REDIS_PREFIX}-strict`, ALLOW_PRIVATE_URLS: 'false' });
    api = clientFor(t, await createAccount(t));
    propertyId = (await createProperty(api)).propertyId;
  });
  afterAll(() => t.close());

  it.each([
    ['http://www.airbnb.com/calendar/ical/1.ics', 'Calendar feed url must use https'],
    ['https://127.0.0.1/calendar.ics', 'Calendar feed url host must be a domain name, not an IP address'],
    ['https://[::1]/calendar.ics', 'Calendar feed url host must be a domain name, not an IP address'],
    ['https://10.0.0.7/calendar.ics', 'Calendar feed url host must be a domain name, not an IP address'],
    ['https://localhost/calendar.ics', 'Calendar feed url host is a local, internal or cloud-metadata name'],
    ['webcal://calendar.internal/listing.ics', 'Calendar feed url host is a local, internal or cloud-metadata name'],
    ['https://metadata.google.internal/', 'Calendar feed url host is a local, internal or cloud-metadata name'],
    ['https://user:pw@www.airbnb.com/calendar/ical/1.ics', 'Calendar feed url must not contain a user name or password'],
    ['ftp://www.airbnb.com/calendar.ics', 'Calendar feed url must use https'],
    ['https://does-not-exist.example.com/calendar.ics', 'Calendar feed url host does not resolve'],
  ])('refuses %s', async (url, detail) => {
    const problem = expectProblem(
      await api.post(`/v1/properties/${propertyId}/calendarFeeds`).send({ url }),
      400,
      'invalidCalendarFeedUrl',
    );
    expect(problem.detail).toBe(detail);
    expect(problem.errors).toEqual([{ pointer: '#/url', detail }]);
  });
});
