import { CalendarSyncService, SyncResult } from '../../src/modules/calendar-feeds/calendar-sync.service';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { CalendarServer, icsFixture, startCalendarServer } from '../support/calendar-server';
import { feedEvents } from '../support/events';
import { createProperty } from '../support/properties';
import { startWorker, TestWorker } from '../support/worker';

/**
 * Calendar feeds (issue 14): a sync brings the property's bookings in line with the calendar, through
 * the bookings service (events, the automatic reminder). The API runs on a Redis prefix no worker
 * reads, so the syncs its creates queue never run: each test syncs by calling the worker's service.
 */
const PREFIX = `pop-test-${process.env.TEST_RUN_ID}-calendar-sync`;

const AIRBNB_STAY_1 = '1418fb94e984-2f8a1c4b6d3e47f9a0b1c2d3e4f5a6b7@airbnb.com';
const AIRBNB_STAY_2 = '1418fb94e984-7c6d5e4f3a2b41c0d9e8f7a6b5c4d3e2@airbnb.com';
const AIRBNB_PAST = '1418fb94e984-0d5c2b7a9e3f41c6b8a2d4e6f8a0c1b3@airbnb.com';

describe('calendar feed sync', () => {
  let t: TestApp;
  let worker: TestWorker;
  let calendars: CalendarServer;
  let path = 0;

  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX: `${PREFIX}-api` });
    worker = await startWorker({ REDIS_PREFIX: `${PREFIX}-worker`, WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    calendars = await startCalendarServer();
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await calendars.close();
  });

  const sync = (feedId: string): Promise<SyncResult> => worker.ctx.get(CalendarSyncService).sync(feedId);

  /** A fresh account and property (Europe/Paris), and a feed on a calendar served with `body`. */
  async function setup(body: string, feedBody: Record<string, unknown> = {}) {
    const api = clientFor(t, await createAccount(t));
    const property = await createProperty(api, { timeZone: 'Europe/Paris' });
    const feed = await addFeed(api, property.propertyId, body, feedBody);
    return { api, propertyId: property.propertyId, feed };
  }

  async function addFeed(api: ApiClient, propertyId: string, body: string, feedBody: Record<string, unknown> = {}) {
    const at = `/listing-${++path}.ics`;
    calendars.serve(at, { body });
    const res = await api
      .post(`/v1/properties/${propertyId}/calendarFeeds`)
      .send({ url: `${calendars.url}${at}`, ...feedBody })
      .expect(201);
    const feed: Record<string, any> & { serve(text: string): void } = {
      ...res.body,
      serve: (text: string) => calendars.serve(at, { body: text }),
    };
    return feed;
  }

  async function bookingsOf(api: ApiClient, propertyId: string): Promise<Array<Record<string, any>>> {
    const res = await api
      .get(`/v1/bookings?propertyId=${propertyId}&dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z&limit=100`)
      .expect(200);
    return res.body.data;
  }

  async function remindersOf(api: ApiClient): Promise<Array<Record<string, any>>> {
    const res = await api.get(`/v1/reminders?dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z&limit=100`).expect(200);
    return res.body.data;
  }

  const feedOf = async (api: ApiClient, id: string) => (await api.get(`/v1/calendarFeeds/${id}`).expect(200)).body;

  it('imports an Airbnb calendar: each stay a booking at the feed times in the property zone, past stays and blocked dates left out', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('airbnb.ics'), { defaultNumberOfGuests: 3 });
    expect(feed).toMatchObject({ status: 'pending', lastSyncedAt: null, bookingsImported: 0 });

    const result = await sync(feed.id);
    expect(result).toMatchObject({ kind: 'synced', counts: { created: 2, changed: 0, cancelled: 0, linked: 0 } });

    const bookings = await bookingsOf(api, propertyId);
    expect(bookings).toEqual([
      expect.objectContaining({
        sourceBookingId: `ical:${feed.id}:${AIRBNB_STAY_1}`,
        status: 1,
        startDate: '2030-07-01T14:00:00.000Z', // 16:00 in Paris (summer time)
        endDate: '2030-07-05T09:00:00.000Z', // 11:00 in Paris
        title: 'Reserved',
        numberOfGuests: 3,
        guestDetails: [{ firstName: 'Reserved', lastName: null }],
      }),
      expect.objectContaining({ sourceBookingId: `ical:${feed.id}:${AIRBNB_STAY_2}`, startDate: '2030-07-10T14:00:00.000Z' }),
    ]);
    // The automation follows as for API bookings: a turnover reminder at each check-out.
    const reminders = await remindersOf(api);
    expect(reminders.map((r) => [r.sourceBookingId, r.date, r.automatic])).toEqual([
      [`ical:${feed.id}:${AIRBNB_STAY_1}`, '2030-07-05T09:00:00.000Z', true],
      [`ical:${feed.id}:${AIRBNB_STAY_2}`, '2030-07-14T09:00:00.000Z', true],
    ]);
    expect(await feedOf(api, feed.id)).toMatchObject({
      status: 'ok',
      lastSyncedAt: expect.any(String),
      lastError: null,
      lastWarning: null,
      skippedEvents: 0,
      bookingsImported: 2,
      consecutiveFailures: 0,
    });
    const events = await feedEvents(api, { until: (all) => all.filter((e) => e.eventName === 'reminder.create').length === 2 });
    expect(events.map((e) => e.eventName)).toEqual([
      'property.create',
      'booking.create',
      'reminder.create',
      'booking.create',
      'reminder.create',
    ]);
    expect(events[1].apiRequestId).toBe(`sync_${feed.id}`);
  });

  it('a second identical sync changes nothing', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('airbnb.ics'));
    await sync(feed.id);
    const before = await bookingsOf(api, propertyId);
    const eventsBefore = await feedEvents(api, { atLeast: 5 });

    expect(await sync(feed.id)).toMatchObject({ kind: 'synced', counts: { created: 0, changed: 0, cancelled: 0, linked: 0 } });
    expect(await bookingsOf(api, propertyId)).toEqual(before);
    expect(await feedEvents(api)).toHaveLength(eventsBefore.length);
  });

  it('changed dates go through the dates change: status 2, the automatic reminder moves', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('airbnb.ics'));
    await sync(feed.id);
    const [first] = await bookingsOf(api, propertyId);
    feed.serve(icsFixture('airbnb.ics').replace('DTEND;VALUE=DATE:20300705', 'DTEND;VALUE=DATE:20300707'));

    expect(await sync(feed.id)).toMatchObject({ kind: 'synced', counts: { changed: 1, created: 0, cancelled: 0 } });
    const [moved] = await bookingsOf(api, propertyId);
    expect(moved).toMatchObject({ bookingId: first.bookingId, status: 2, startDate: first.startDate, endDate: '2030-07-07T09:00:00.000Z' });
    const reminder = (await remindersOf(api)).find((r) => r.sourceBookingId === first.sourceBookingId);
    expect(reminder?.date).toBe('2030-07-07T09:00:00.000Z');
    const events = await feedEvents(api, { until: (all) => all.some((e) => e.eventName === 'booking.changeDates') });
    expect(events.filter((e) => e.eventName === 'booking.changeDates').map((e) => e.results[0].bookingId)).toEqual([first.bookingId]);
  });

  it('a UID gone from the calendar cancels its future booking (status 3, reminder removed); a past booking is never touched', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('airbnb.ics'));
    await sync(feed.id);
    const [first, second] = await bookingsOf(api, propertyId);
    // The second stay is made past (by hand, through the API): a feed must leave it alone from now on.
    await api
      .patch(`/v1/bookings/${second.bookingId}/dates`)
      .send({ startDate: '2020-01-01T15:00:00Z', endDate: '2020-01-03T10:00:00Z' })
      .expect(200);

    const withoutBoth = icsFixture('airbnb.ics')
      .split('BEGIN:VEVENT')
      .filter((block) => !block.includes(AIRBNB_STAY_1) && !block.includes(AIRBNB_STAY_2))
      .join('BEGIN:VEVENT');
    feed.serve(withoutBoth);
    expect(await sync(feed.id)).toMatchObject({ kind: 'synced', counts: { cancelled: 1, created: 0, changed: 0 } });

    const after = await bookingsOf(api, propertyId);
    expect(after.find((b) => b.bookingId === first.bookingId)).toMatchObject({ status: 3 });
    expect(after.find((b) => b.bookingId === second.bookingId)).toMatchObject({ status: 2, startDate: '2020-01-01T15:00:00.000Z' });
    expect((await remindersOf(api)).map((r) => r.sourceBookingId)).toEqual([second.sourceBookingId]);
    expect(await feedOf(api, feed.id)).toMatchObject({ bookingsImported: 0 });
    // The past stay of the calendar (2020) was never imported.
    expect(after.some((b) => b.sourceBookingId.endsWith(AIRBNB_PAST))).toBe(false);
  });

  it('blocked dates: skipped by default (Airbnb, Vrbo, Booking.com markers), imported with skipBlocked false', async () => {
    const vrbo = await setup(icsFixture('vrbo.ics'));
    await sync(vrbo.feed.id);
    expect((await bookingsOf(vrbo.api, vrbo.propertyId)).map((b) => b.title)).toEqual([
      'Reserved - Airbnb guest',
      'Reserved - Maria Lopez',
    ]);

    const booking = await setup(icsFixture('booking-com.ics'));
    expect(await sync(booking.feed.id)).toMatchObject({ kind: 'synced', counts: { created: 0 } });
    expect(await bookingsOf(booking.api, booking.propertyId)).toEqual([]);

    const kept = await setup(icsFixture('booking-com.ics'), { skipBlocked: false });
    await sync(kept.feed.id);
    expect((await bookingsOf(kept.api, kept.propertyId)).map((b) => [b.title, b.guestDetails[0].firstName])).toEqual([
      ['CLOSED - Not available', 'CLOSED - Not available'],
      ['CLOSED - Not available', 'CLOSED - Not available'],
    ]);
    // Switching skipBlocked on takes them out at the next sync (a new reading of the same calendar, no 304).
    await kept.api.patch(`/v1/calendarFeeds/${kept.feed.id}`).send({ skipBlocked: true }).expect(200);
    expect(await sync(kept.feed.id)).toMatchObject({ kind: 'synced', counts: { cancelled: 2 } });
  });

  it('the same stay in two feeds of one property is one booking; it is cancelled only once neither lists it', async () => {
    const { api, propertyId, feed: airbnb } = await setup(icsFixture('airbnb.ics'));
    // Another check-in time: the same dates are the same stay all the same.
    const vrbo = await addFeed(api, propertyId, icsFixture('vrbo.ics'), { checkInTime: '15:00' });
    await sync(airbnb.id);
    expect(await sync(vrbo.id)).toMatchObject({ kind: 'synced', counts: { created: 1, linked: 1 } });

    const bookings = await bookingsOf(api, propertyId);
    // 2030-07-01 → 05 is in both: one booking, the first feed's (its 16:00 check-in).
    expect(bookings.map((b) => [b.startDate, b.sourceBookingId])).toEqual([
      ['2030-07-01T14:00:00.000Z', `ical:${airbnb.id}:${AIRBNB_STAY_1}`],
      ['2030-07-10T14:00:00.000Z', `ical:${airbnb.id}:${AIRBNB_STAY_2}`],
      ['2030-08-01T13:00:00.000Z', expect.stringMatching(new RegExp(`^ical:${vrbo.id}:`))], // Vrbo's own stay, at its 15:00
    ]);
    expect(await feedOf(api, vrbo.id)).toMatchObject({ bookingsImported: 2 });

    // Gone from Airbnb, still on Vrbo: kept.
    airbnb.serve(
      icsFixture('airbnb.ics')
        .replace(`UID:${AIRBNB_STAY_1}`, 'UID:another-stay@airbnb.com')
        .replace('DTSTART;VALUE=DATE:20300701', 'DTSTART;VALUE=DATE:20300702'),
    );
    expect(await sync(airbnb.id)).toMatchObject({ counts: { cancelled: 0, created: 1 } });
    expect((await bookingsOf(api, propertyId)).find((b) => b.bookingId === bookings[0].bookingId)).toMatchObject({ status: 1 });

    // Gone from Vrbo too: cancelled.
    vrbo.serve(
      icsFixture('vrbo.ics').replace('DTSTART;VALUE=DATE:20300701', 'DTSTART;VALUE=DATE:20300601').replace('0c9e8d7f', '1c9e8d7f'),
    );
    expect(await sync(vrbo.id)).toMatchObject({ counts: { cancelled: 1, created: 1 } });
    expect((await bookingsOf(api, propertyId)).find((b) => b.bookingId === bookings[0].bookingId)).toMatchObject({ status: 3 });
  });

  it('time zones: VTIMEZONE, a bare IANA TZID and UTC values are honoured', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('time-zones.ics'));
    await sync(feed.id);
    expect((await bookingsOf(api, propertyId)).map((b) => [b.title, b.startDate, b.endDate])).toEqual([
      ['Jane Doe', '2030-07-10T19:00:00.000Z', '2030-07-12T14:00:00.000Z'],
      ['Kenji Sato', '2030-07-20T06:00:00.000Z', '2030-07-22T01:00:00.000Z'],
      ['Utc Guest', '2030-08-01T14:00:00.000Z', '2030-08-03T09:00:00.000Z'],
      ['Floating Guest', '2030-08-10T15:00:00.000Z', '2030-08-13T07:00:00.000Z'],
    ]);
  });

  it('deleting a feed keeps the bookings it imported, no longer synced', async () => {
    const { api, propertyId, feed } = await setup(icsFixture('airbnb.ics'));
    await sync(feed.id);
    await api.delete(`/v1/calendarFeeds/${feed.id}`).expect(204);
    expect((await bookingsOf(api, propertyId)).map((b) => b.status)).toEqual([1, 1]);
    expect(await sync(feed.id)).toEqual({ kind: 'gone' });
  });
});
