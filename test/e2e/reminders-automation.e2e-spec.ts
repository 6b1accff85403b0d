import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { at, createBooking, validBooking } from '../support/bookings';
import { FeedEvent, feedEvents } from '../support/events';
import { createProperty, uniq } from '../support/properties';

/** The scheduling automation (spec 1): a booking's turnover reminder at check-out, kept in step with the booking. */
describe('scheduling automation', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  async function fresh(propertyOverrides: Record<string, unknown> = {}): Promise<{ api: ApiClient; propertyId: string }> {
    const api = clientFor(t, await createAccount(t));
    const { propertyId } = await createProperty(api, propertyOverrides);
    return { api, propertyId };
  }

  /** Every reminder of the account (a window wide enough for every test date). */
  async function reminders(api: ApiClient): Promise<Array<Record<string, any>>> {
    const res = await api
      .get(`/v1/reminders?dateFrom=${encodeURIComponent(at(-36500))}&dateTo=${encodeURIComponent(at(36500))}&limit=100`)
      .expect(200);
    return res.body.data;
  }

  const named = (events: FeedEvent[], prefix: string) => events.filter((e) => e.eventName.startsWith(prefix));

  it('creating a booking creates its turnover reminder at check-out in the same transaction', async () => {
    const { api, propertyId } = await fresh();
    const created = await api.post('/v1/bookings').set('x-request-id', 'req-auto-1').send(validBooking(propertyId)).expect(201);
    const booking = created.body;
    const [reminder] = await reminders(api);
    expect(reminder).toMatchObject({
      reminderId: expect.stringMatching(/^rem_/),
      propertyId,
      title: `Turnover after booking ${booking.sourceBookingId}`,
      date: booking.endDate,
      sourceBookingId: booking.sourceBookingId,
      sourceId: null,
      actionable: true,
      checklists: [],
      jobRequestSettings: null,
      automatic: true,
      firedAt: null,
    });
    const events = await feedEvents(api, { atLeast: 3 });
    expect(events.map((e) => e.eventName)).toEqual(['property.create', 'booking.create', 'reminder.create']);
    const [, bookingEvent, reminderEvent] = events;
    expect(reminderEvent.results).toEqual([reminder]);
    // Same transaction, same request.
    expect(reminderEvent.apiRequestId).toBe('req-auto-1');
    expect(reminderEvent.clientRequestId).toBe(bookingEvent.clientRequestId);
    expect(reminderEvent.createdAt).toBe(bookingEvent.createdAt);
  });

  it('an idempotent replay of the booking creates nothing more', async () => {
    const { api, propertyId } = await fresh();
    const key = `auto-${uniq()}`;
    const body = validBooking(propertyId);
    await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
    const replay = await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await reminders(api)).toHaveLength(1);
  });

  it('changing the dates moves it to the new check-out (reminder.update, same reminder, unfired); the same check-out moves nothing', async () => {
    const { api, propertyId } = await fresh();
    const booking = await createBooking(api, propertyId);
    const [before] = await reminders(api);
    await api
      .patch(`/v1/bookings/${booking.bookingId}/dates`)
      .send({ startDate: at(10), endDate: at(12.5) })
      .expect(200);
    const [moved] = await reminders(api);
    expect(moved).toMatchObject({
      reminderId: before.reminderId,
      date: at(12.5),
      automatic: true,
      firedAt: null,
      createdAt: before.createdAt,
    });
    expect(moved.updatedAt > before.updatedAt).toBe(true);
    // A new check-in with the same check-out: the reminder stays where it is.
    await api
      .patch(`/v1/bookings/${booking.bookingId}/dates`)
      .send({ startDate: at(11), endDate: at(12.5) })
      .expect(200);
    expect(await reminders(api)).toEqual([moved]);
    const events = named(await feedEvents(api, { atLeast: 6 }), '');
    expect(events.map((e) => e.eventName)).toEqual([
      'property.create',
      'booking.create',
      'reminder.create',
      'booking.changeDates',
      'reminder.update',
      'booking.changeDates',
    ]);
    expect(events[4].results).toEqual([moved]);
  });

  it('cancelling the booking removes it (reminder.delete); the cancelled booking stays', async () => {
    const { api, propertyId } = await fresh();
    const booking = await createBooking(api, propertyId);
    const [reminder] = await reminders(api);
    await api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
    expect(await reminders(api)).toEqual([]);
    await api.get(`/v1/reminders/${reminder.reminderId}`).expect(404);
    await api.get(`/v1/bookings/${booking.bookingId}`).expect(200);
    const events = await feedEvents(api, { atLeast: 5 });
    expect(events.slice(-2).map((e) => e.eventName)).toEqual(['booking.cancel', 'reminder.delete']);
    expect(events[events.length - 1].results).toEqual([reminder]);
  });

  it('deleting the booking removes it; other reminders tied to the booking by the client stay', async () => {
    const { api, propertyId } = await fresh();
    const booking = await createBooking(api, propertyId);
    const own = await api
      .post('/v1/reminders')
      .send({ title: 'Leave a welcome gift', date: at(0.5), propertyId, sourceBookingId: booking.sourceBookingId })
      .expect(201);
    await api.delete(`/v1/bookings/${booking.bookingId}`).expect(204);
    expect((await reminders(api)).map((r) => r.reminderId)).toEqual([own.body.reminderId]);
    const events = await feedEvents(api, { atLeast: 6 });
    expect(events.slice(-2).map((e) => e.eventName)).toEqual(['booking.delete', 'reminder.delete']);
    expect(events[events.length - 1].results[0]).toMatchObject({ automatic: true, sourceBookingId: booking.sourceBookingId });
  });

  it('a turnover reminder the client deleted is not made again by a date change', async () => {
    const { api, propertyId } = await fresh();
    const booking = await createBooking(api, propertyId);
    const [reminder] = await reminders(api);
    await api.delete(`/v1/reminders/${reminder.reminderId}`).expect(204);
    await api
      .patch(`/v1/bookings/${booking.bookingId}/dates`)
      .send({ startDate: at(5), endDate: at(6) })
      .expect(200);
    await api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
    expect(await reminders(api)).toEqual([]);
  });

  it('is off for a property with details.disableRemindersAutomation true, and follows the flag for later bookings', async () => {
    const { api, propertyId } = await fresh({ details: { disableRemindersAutomation: true } });
    const quiet = await createBooking(api, propertyId);
    expect(await reminders(api)).toEqual([]);
    await api
      .patch(`/v1/bookings/${quiet.bookingId}/dates`)
      .send({ startDate: at(5), endDate: at(6) })
      .expect(200);
    expect(await reminders(api)).toEqual([]);
    await api
      .patch(`/v1/properties/${propertyId}`)
      .send({ details: { disableRemindersAutomation: false } })
      .expect(200);
    const loud = await createBooking(api, propertyId);
    expect((await reminders(api)).map((r) => r.sourceBookingId)).toEqual([loud.sourceBookingId]);
    // Another property of the account is unaffected by the first one's flag.
    const other = await createProperty(api);
    await createBooking(api, other.propertyId);
    expect(await reminders(api)).toHaveLength(2);
  });

  it('deleting the property takes its reminders too, automatic and written, after its bookings', async () => {
    const { api, propertyId } = await fresh();
    const booking = await createBooking(api, propertyId, { startDate: at(-3650), endDate: at(-3648) });
    const written = await api
      .post('/v1/reminders')
      .send({ title: 'Gutter check', date: at(3650), propertyId })
      .expect(201);
    const other = await createProperty(api);
    const kept = await api
      .post('/v1/reminders')
      .send({ title: 'Stays', date: at(1), propertyId: other.propertyId })
      .expect(201);
    await api.delete(`/v1/properties/${propertyId}`).expect(204);
    expect((await reminders(api)).map((r) => r.reminderId)).toEqual([kept.body.reminderId]);
    const events = await feedEvents(api, { until: (e) => e.some((x) => x.eventName === 'property.delete') });
    const tail = events.slice(-4);
    expect(tail.map((e) => e.eventName)).toEqual(['booking.delete', 'reminder.delete', 'reminder.delete', 'property.delete']);
    expect(tail[0].results[0].bookingId).toBe(booking.bookingId);
    expect(tail.slice(1, 3).map((e) => e.results[0].automatic)).toEqual([true, false]);
    expect(tail[2].results[0].reminderId).toBe(written.body.reminderId);
  });

  it('a refused property deletion leaves the reminders in place', async () => {
    const { api, propertyId } = await fresh();
    await createBooking(api, propertyId, { startDate: at(3650), endDate: at(3652) });
    await api.delete(`/v1/properties/${propertyId}`).expect(409);
    expect(await reminders(api)).toHaveLength(1);
  });

  it('another account never sees the automation’s reminders', async () => {
    const { api, propertyId } = await fresh();
    await createBooking(api, propertyId);
    const [reminder] = await reminders(api);
    const other = (await fresh()).api;
    expect(await reminders(other)).toEqual([]);
    await other.get(`/v1/reminders/${reminder.reminderId}`).expect(404);
    await other.delete(`/v1/reminders/${reminder.reminderId}`).expect(404);
  });
});
