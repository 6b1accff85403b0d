import { DataSource, QueryRunner } from 'typeorm';
import { BOOKING_STATUS } from '../../src/modules/bookings/booking.rules';
import { BookingsRepository } from '../../src/modules/bookings/bookings.repository';
import { newId } from '../../src/platform/ids/ids';
import { clientFor, createAccount } from '../support/app';
import { validBooking } from '../support/bookings';
import { createProperty, uniq } from '../support/properties';
import { backendPid, useRaceApp, waitUntilBlockedBy } from '../support/races';
import { waitUntil } from '../support/wait';
import { BOOKING_IDS } from '../../src/modules/bookings/bookings.ids';

/**
 * A write PostgreSQL picks as a deadlock's victim (40P01): its transaction rolled back, nothing committed,
 * so the unit of work runs it again and the client sees one 201, never a 500. The deadlock is real: a
 * transaction of the test holds one lock the request needs and then waits for one the request holds.
 */
describe('Concurrent writes: a deadlock', () => {
  const races = useRaceApp('deadlock');

  /** Deadlocks PostgreSQL has detected in this database so far (its statistics lag a little: poll them). */
  const deadlocks = async (db: DataSource): Promise<number> =>
    Number((await db.query(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`))[0].deadlocks);

  it("runs a create chosen as a deadlock's victim again: 201 once, one booking and one event, its key replays it", async () => {
    const { t, db } = races;
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const property = await createProperty(api);
    const body = validBooking(property.propertyId);
    const key = `idem-deadlock-${uniq()}`;
    const deadlocksBefore = await deadlocks(db);

    const holder: QueryRunner = db.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      // The test's transaction is never the victim: it would look for a deadlock only after 30 s, the request after 1 s.
      await holder.query(`SET LOCAL deadlock_timeout = '30s'`);
      // Lock A: the request's sourceBookingId, taken by an uncommitted twin (the request's insert waits for its outcome).
      await t.app.get(BookingsRepository).insertUnlessSourceTaken(holder.manager, {
        id: newId(BOOKING_IDS.booking),
        accountId: account.accountId,
        propertyId: property.propertyId,
        sourceBookingId: body.sourceBookingId,
        status: BOOKING_STATUS.created,
        startDate: new Date(body.startDate),
        endDate: new Date(body.endDate),
        title: null,
        numberOfGuests: 1,
        guestDetails: [],
        tags: null,
        otherAttributes: null,
      });
      // The request takes lock B (a key share of the property, resolved in its transaction), then waits on A.
      const answer = api
        .post('/v1/bookings')
        .set('Idempotency-Key', key)
        .send(body)
        .then((res) => res);
      await waitUntilBlockedBy(db, await backendPid(holder.manager));
      // The test asks for B: a cycle. PostgreSQL aborts the request's transaction, and this lock is granted.
      await holder.query(`SELECT 1 FROM properties WHERE id = $1 FOR UPDATE`, [property.propertyId]);
      await holder.rollbackTransaction();

      const created = await answer;
      expect({ status: created.status, body: created.body }).toMatchObject({
        status: 201,
        body: { sourceBookingId: body.sourceBookingId, propertyId: property.propertyId },
      });
      // The deadlock did happen (and the test's transaction went on: the request was its victim).
      await waitUntil(async () => (await deadlocks(db)) > deadlocksBefore, 20_000, 'the deadlock in pg_stat_database', 100);

      const bookings = await db.query(`SELECT id FROM bookings WHERE account_id = $1`, [account.accountId]);
      expect(bookings).toEqual([{ id: created.body.bookingId }]);
      const events = await db.query(
        `SELECT results -> 0 ->> 'bookingId' AS booking_id FROM events WHERE account_id = $1 AND event_name = 'booking.create'`,
        [account.accountId],
      );
      expect(events).toEqual([{ booking_id: created.body.bookingId }]);
      const replayed = await api.post('/v1/bookings').set('Idempotency-Key', key).send(body).expect(201);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.text).toBe(created.text);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  }, 60_000);
});
