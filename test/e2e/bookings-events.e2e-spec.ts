import { requestFingerprint } from '../../src/platform/http/idempotency.rules';
import { IdempotencyStore } from '../../src/platform/idempotency/idempotency.store';
import { ApiClient, appSuite, clientFor, createAccount, TestAccount } from '../support/app';
import { at, createBooking, validBooking } from '../support/bookings';
import { FeedEvent, feedEvents } from '../support/events';
import { expectProblem } from '../support/problem';
import { createProperty, uniq } from '../support/properties';

/** Booking events, Idempotency-Key on create, and what a property deletion does to its bookings. */
describe('booking events, idempotency and property deletion', () => {
  const s = appSuite();

  async function fresh(): Promise<{ account: TestAccount; api: ApiClient; propertyId: string }> {
    const account = await createAccount(s.t);
    const api = clientFor(s.t, account);
    const { propertyId } = await createProperty(api);
    return { account, api, propertyId };
  }

  const bookingEvents = (events: FeedEvent[]) => events.filter((e) => e.eventName.startsWith('booking.'));

  it('booking.create/update/changeDates/cancel/delete carry the resource as the API returned it, with the request ids', async () => {
    const { api, propertyId } = await fresh();
    const key = `bk-key-${uniq()}`;
    const created = await api
      .post('/v1/bookings')
      .set('Idempotency-Key', key)
      .set('x-request-id', 'req-bk-1')
      .send(validBooking(propertyId))
      .expect(201);
    const id = created.body.bookingId;
    const updated = await api.patch(`/v1/bookings/${id}`).send({ title: 'Renamed' }).expect(200);
    const moved = await api
      .patch(`/v1/bookings/${id}/dates`)
      .send({ startDate: at(40), endDate: at(42) })
      .expect(200);
    const cancelled = await api.post(`/v1/bookings/${id}/cancel`).expect(200);
    await api.delete(`/v1/bookings/${id}`).set('x-request-id', 'req-bk-del').expect(204);
    // Calls that change nothing or fail write nothing.
    const other = await createBooking(api, propertyId);
    await api.patch(`/v1/bookings/${other.bookingId}`).send({}).expect(200);
    await api.post(`/v1/bookings/${other.bookingId}/cancel`).expect(200);
    await api.post(`/v1/bookings/${other.bookingId}/cancel`).expect(200);
    await api
      .patch(`/v1/bookings/${other.bookingId}/dates`)
      .send({ startDate: at(1), endDate: at(2) })
      .expect(409);
    await api
      .post('/v1/bookings')
      .send(validBooking(propertyId, { sourceBookingId: other.sourceBookingId }))
      .expect(409);

    const events = bookingEvents(await feedEvents(api, { until: (e) => bookingEvents(e).length >= 7 }));
    expect(events.map((e) => e.eventName)).toEqual([
      'booking.create',
      'booking.update',
      'booking.changeDates',
      'booking.cancel',
      'booking.delete',
      'booking.create',
      'booking.cancel',
    ]);
    const [create, update, changeDates, cancel, del] = events;
    expect(JSON.stringify(create.results)).toBe(JSON.stringify([created.body]));
    expect(create.clientRequestId).toBe(key);
    expect(create.apiRequestId).toBe('req-bk-1');
    expect(update.results).toEqual([updated.body]);
    expect(changeDates.results).toEqual([moved.body]);
    expect(cancel.results).toEqual([cancelled.body]);
    expect(del.results).toEqual([cancelled.body]);
    expect(del.apiRequestId).toBe('req-bk-del');
    expect(JSON.stringify(events)).not.toMatch(/sourcePictureUrl|"sourceId"/);
  });

  describe('Idempotency-Key on POST /v1/bookings', () => {
    it('replays the first response byte for byte with Idempotent-Replayed; one booking, one event', async () => {
      const { account, api, propertyId } = await fresh();
      const key = `idem-${uniq()}`;
      const body = validBooking(propertyId);
      const first = await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.text).toBe(first.text);
      const [rows] = await s.db.query(`SELECT count(*)::int AS n FROM bookings WHERE account_id = $1`, [account.accountId]);
      expect(rows.n).toBe(1);
      const [events] = await s.db.query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND event_name = 'booking.create'`, [
        account.accountId,
      ]);
      expect(events.n).toBe(1);
    });

    it('the same key with another body is a 422; while the first is in flight a 409; a failed create frees the key', async () => {
      const { account, api, propertyId } = await fresh();
      const key = `idem-${uniq()}`;
      await api.post('/v1/bookings').set('Idempotency-Key', key).send(validBooking(propertyId)).expect(201);
      expectProblem(await api.post('/v1/bookings').set('Idempotency-Key', key).send(validBooking(propertyId)), 422, 'idempotencyKeyReused');

      const inFlight = `idem-${uniq()}`;
      const body = validBooking(propertyId);
      const claim = await s.t.app
        .get(IdempotencyStore)
        .claim(account.accountId, inFlight, requestFingerprint('POST', '/v1/bookings', body));
      expect(claim.kind).toBe('claimed');
      expectProblem(await api.post('/v1/bookings').set('Idempotency-Key', inFlight).send(body), 409, 'idempotencyKeyInProgress');
      const [none] = await s.db.query(`SELECT count(*)::int AS n FROM bookings WHERE account_id = $1 AND source_booking_id = $2`, [
        account.accountId,
        body.sourceBookingId,
      ]);
      expect(none.n).toBe(0);

      // A 409 duplicate and a 400 are failures: the key stays usable for a corrected request.
      const reused = `idem-${uniq()}`;
      const dup = validBooking(propertyId, { sourceBookingId: body.sourceBookingId });
      await createBooking(api, propertyId, { sourceBookingId: body.sourceBookingId });
      await api.post('/v1/bookings').set('Idempotency-Key', reused).send(dup).expect(409);
      await api
        .post('/v1/bookings')
        .set('Idempotency-Key', reused)
        .send(validBooking(propertyId, { endDate: at(-1) }))
        .expect(400);
      const ok = await api.post('/v1/bookings').set('Idempotency-Key', reused).send(validBooking(propertyId)).expect(201);
      expect(ok.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('property deletion', () => {
    it('refuses while bookings that are not cancelled end in the future (409 naming how many), and changes nothing', async () => {
      const { api, propertyId } = await fresh();
      const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
      await createBooking(api, propertyId, { startDate: future(-2), endDate: future(1) }); // under way
      await createBooking(api, propertyId, { startDate: future(10), endDate: future(12) });
      const cancelled = await createBooking(api, propertyId, { startDate: future(20), endDate: future(22) });
      await api.post(`/v1/bookings/${cancelled.bookingId}/cancel`).expect(200);
      await createBooking(api, propertyId, { startDate: future(-10), endDate: future(-8) }); // over
      const res = await api.delete(`/v1/properties/${propertyId}`);
      const problem = expectProblem(res, 409, 'conflict');
      expect(problem.detail).toContain('2 bookings');
      expect(problem.activeBookingCount).toBe(2);
      await api.get(`/v1/properties/${propertyId}`).expect(200);
      const listed = await api
        .get(`/v1/bookings?dateFrom=${encodeURIComponent(future(-30))}&dateTo=${encodeURIComponent(future(30))}`)
        .expect(200);
      expect(listed.body.data).toHaveLength(4);
    });

    it('says "1 booking" for one', async () => {
      const { api, propertyId } = await fresh();
      await createBooking(api, propertyId, { startDate: new Date(Date.now() + 86_400_000).toISOString(), endDate: at(3650) });
      expect((await api.delete(`/v1/properties/${propertyId}`).expect(409)).body.detail).toContain('1 booking that is');
    });

    it('otherwise deletes the property’s past and cancelled bookings with it, one booking.delete each, before property.delete', async () => {
      const { api, propertyId } = await fresh();
      const keep = await createProperty(api);
      const past = await createBooking(api, propertyId, { startDate: at(-3650), endDate: at(-3648) });
      const cancelled = await createBooking(api, propertyId, { startDate: at(3650), endDate: at(3652) });
      await api.post(`/v1/bookings/${cancelled.bookingId}/cancel`).expect(200);
      const elsewhere = await createBooking(api, keep.propertyId);
      await api.delete(`/v1/properties/${propertyId}`).expect(204);
      await api.get(`/v1/bookings/${past.bookingId}`).expect(404);
      await api.get(`/v1/bookings/${cancelled.bookingId}`).expect(404);
      await api.get(`/v1/bookings/${elsewhere.bookingId}`).expect(200);
      const events = await feedEvents(api, { until: (e) => e.some((x) => x.eventName === 'property.delete') });
      // The past booking's turnover reminder goes with it (the cancelled one's went at the cancel): docs/reminders.md.
      const tail = events.slice(-4);
      expect(tail.map((e) => e.eventName)).toEqual(['booking.delete', 'booking.delete', 'reminder.delete', 'property.delete']);
      expect(tail[0].results[0].bookingId).toBe(past.bookingId);
      expect(tail[1].results[0]).toMatchObject({ bookingId: cancelled.bookingId, status: 3 });
    });
  });
});
