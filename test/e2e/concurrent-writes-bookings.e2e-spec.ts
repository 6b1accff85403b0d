import { createBooking, validBooking } from '../support/bookings';
import { createChecklist, validJob } from '../support/job-requests';
import { createProperty, uniq } from '../support/properties';
import {
  Answer,
  CONFLICT,
  expectAnswer,
  INVALID_STATE,
  NOT_FOUND,
  oneWinner,
  RaceCase,
  ROUNDS,
  useRaceApp,
  WINDOW,
} from '../support/races';

/**
 * Conflicting writes at bookings, their reminders and checklists, sent at the same moment round after
 * round: a booking's cancel, date changes, PATCH and DELETE, two creates with one sourceBookingId or one
 * Idempotency-Key; a turnover reminder deleted while its booking moves or is deleted; a checklist
 * disabled while it is PATCHed or named by a new job request or reminder. Each round: no 5xx, every
 * answer a success or a 404 / 409 problem, the state (the turnover reminder included) and the events feed
 * exactly what the answers imply (test/support/races.ts).
 */

describe('Concurrent conflicting writes: never a 5xx, state and events as the answers say', () => {
  const races = useRaceApp('bookings');
  const { open } = races;

  describe('bookings', () => {
    const datesA = { startDate: '2030-01-02T15:00:00.000Z', endDate: '2030-01-05T10:00:00.000Z' };
    const datesB = { startDate: '2030-01-03T15:00:00.000Z', endDate: '2030-01-06T10:00:00.000Z' };

    /** The property's automatic reminders (the turnover of each booking). */
    const automaticReminders = async (r: RaceCase, propertyId: string) =>
      (await r.api.get(`/v1/reminders?${WINDOW}&propertyId=${propertyId}`).expect(200)).body.data.filter((x: any) => x.automatic);

    it('cancel and PATCH dates: a date change after the cancel is refused, so both 2xx means the change came first', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const b = await createBooking(r.api, p.propertyId);
        const [cancel, dates] = await r.together(
          round,
          ['cancel booking', () => r.api.post(`/v1/bookings/${b.bookingId}/cancel`)],
          ['PATCH booking dates', () => r.api.patch(`/v1/bookings/${b.bookingId}/dates`).send(datesA)],
        );
        expectAnswer(cancel, 200);
        expectAnswer(dates, 200, INVALID_STATE);
        const changed = dates.status === 200;
        r.wrote(cancel, [`booking.cancel ${b.bookingId}`, 'reminder.delete *']);
        if (changed) r.wrote(dates, [`booking.changeDates ${b.bookingId}`, 'reminder.update *']);
        const after = (await r.api.get(`/v1/bookings/${b.bookingId}`).expect(200)).body;
        expect(after).toMatchObject({ status: 3, ...(changed ? datesA : { startDate: b.startDate, endDate: b.endDate }) });
        expect(cancel.body).toMatchObject({ status: 3, endDate: after.endDate });
        // The turnover reminder went with the cancel, wherever it was.
        r.check(cancel, 'reminder.delete', (reminder) => expect(reminder.date).toBe(after.endDate));
      }
      expect(await automaticReminders(r, p.propertyId)).toEqual([]);
      await r.verifyFeed();
    });

    it('two PATCH dates: both apply in turn; the booking and its turnover reminder end on the same dates', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const b = await createBooking(r.api, p.propertyId);
        const [a, c] = await r.together(
          round,
          ['PATCH dates A', () => r.api.patch(`/v1/bookings/${b.bookingId}/dates`).send(datesA)],
          ['PATCH dates B', () => r.api.patch(`/v1/bookings/${b.bookingId}/dates`).send(datesB)],
        );
        expectAnswer(a, 200);
        expectAnswer(c, 200);
        r.wrote(a, [`booking.changeDates ${b.bookingId}`, 'reminder.update *']);
        r.wrote(c, [`booking.changeDates ${b.bookingId}`, 'reminder.update *']);
        const after = (await r.api.get(`/v1/bookings/${b.bookingId}`).expect(200)).body;
        expect([datesA.endDate, datesB.endDate]).toContain(after.endDate);
        expect(after).toMatchObject({ status: 2, ...(after.endDate === datesA.endDate ? datesA : datesB) });
        const [turnover] = (await automaticReminders(r, p.propertyId)).filter((x: any) => x.sourceBookingId === b.sourceBookingId);
        expect(turnover.date).toBe(after.endDate);
      }
      await r.verifyFeed();
    });

    it('PATCH and DELETE of one booking: the delete always wins; a PATCH that answered 200 came first', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const b = await createBooking(r.api, p.propertyId);
        const [patch, del] = await r.together(
          round,
          ['PATCH booking', () => r.api.patch(`/v1/bookings/${b.bookingId}`).send({ title: `Stay ${round}` })],
          ['DELETE booking', () => r.api.delete(`/v1/bookings/${b.bookingId}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        if (patch.status === 200) r.wrote(patch, [`booking.update ${b.bookingId}`]);
        r.wrote(del, [`booking.delete ${b.bookingId}`, 'reminder.delete *']);
        r.check(del, 'booking.delete', (shape) => expect(shape.title).toBe(patch.status === 200 ? `Stay ${round}` : null));
        await r.api.get(`/v1/bookings/${b.bookingId}`).expect(404);
      }
      expect(await automaticReminders(r, p.propertyId)).toEqual([]);
      await r.verifyFeed();
    });

    it('two creates with one sourceBookingId: one 201, one 409 naming it', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const body = validBooking(p.propertyId);
        const answers = await r.together(
          round,
          ['POST booking (1)', () => r.api.post('/v1/bookings').send(body)],
          ['POST booking (2)', () => r.api.post('/v1/bookings').send(body)],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body).toMatchObject({ bookingId: created.body.bookingId, existingId: created.body.bookingId });
        r.wrote(created, [`booking.create ${created.body.bookingId}`, 'reminder.create *']);
      }
      await r.verifyFeed();
    });

    it('two creates with one Idempotency-Key: one 201, the other a 409 in progress or the replayed 201', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const body = validBooking(p.propertyId);
        const key = `key-${uniq()}`;
        const [first, second] = await r.together(
          round,
          ['POST booking with key (1)', () => r.api.post('/v1/bookings').set('Idempotency-Key', key).send(body)],
          ['POST booking with key (2)', () => r.api.post('/v1/bookings').set('Idempotency-Key', key).send(body)],
        );
        expectAnswer(first, 201, [409, 'idempotencyKeyInProgress']);
        expectAnswer(second, 201, [409, 'idempotencyKeyInProgress']);
        const created = [first, second].filter((a) => a.status === 201 && a.headers['idempotent-replayed'] !== 'true');
        expect(created).toHaveLength(1);
        for (const replay of [first, second].filter((a) => a.headers['idempotent-replayed'] === 'true')) {
          expect(replay).toMatchObject({ status: 201, body: created[0].body });
        }
        r.wrote(created[0], [`booking.create ${created[0].body.bookingId}`, 'reminder.create *']);
      }
      // One booking per key, whatever each twin answered.
      const listed = (await r.api.get(`/v1/bookings?${WINDOW}&propertyId=${p.propertyId}&limit=100`).expect(200)).body.data;
      expect(listed).toHaveLength(ROUNDS);
      await r.verifyFeed();
    });
  });

  describe('reminders', () => {
    it("DELETE of a turnover reminder and its booking's date change: moved then deleted, or deleted and left alone", async () => {
      const r = await open();
      const p = await createProperty(r.api);
      const moved = { startDate: '2030-01-02T15:00:00.000Z', endDate: '2030-01-07T10:00:00.000Z' };
      for (let round = 0; round < ROUNDS; round++) {
        const b = await createBooking(r.api, p.propertyId);
        const reminder = await turnoverOf(r, p.propertyId, b.sourceBookingId);
        const [del, dates] = await r.together(
          round,
          ['DELETE reminder', () => r.api.delete(`/v1/reminders/${reminder.reminderId}`)],
          ['PATCH booking dates', () => r.api.patch(`/v1/bookings/${b.bookingId}/dates`).send(moved)],
        );
        expectAnswer(del, 204);
        expectAnswer(dates, 200);
        // Which came first shows in the deleted reminder: at the new check-out if the change moved it first.
        const deletedAt = await deletedReminderDate(r, del);
        expect([b.endDate, moved.endDate]).toContain(deletedAt);
        r.wrote(del, [`reminder.delete ${reminder.reminderId}`]);
        r.wrote(dates, [
          `booking.changeDates ${b.bookingId}`,
          ...(deletedAt === moved.endDate ? [`reminder.update ${reminder.reminderId}`] : []),
        ]);
        await r.api.get(`/v1/reminders/${reminder.reminderId}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('DELETE of a booking and of its turnover reminder: the reminder is deleted once, by one of them', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const b = await createBooking(r.api, p.propertyId);
        const reminder = await turnoverOf(r, p.propertyId, b.sourceBookingId);
        const [delBooking, delReminder] = await r.together(
          round,
          ['DELETE booking', () => r.api.delete(`/v1/bookings/${b.bookingId}`)],
          ['DELETE reminder', () => r.api.delete(`/v1/reminders/${reminder.reminderId}`)],
        );
        expectAnswer(delBooking, 204);
        expectAnswer(delReminder, 204, NOT_FOUND);
        const byReminderRoute = delReminder.status === 204;
        if (byReminderRoute) r.wrote(delReminder, [`reminder.delete ${reminder.reminderId}`]);
        r.wrote(delBooking, [`booking.delete ${b.bookingId}`, ...(byReminderRoute ? [] : [`reminder.delete ${reminder.reminderId}`])]);
        await r.api.get(`/v1/reminders/${reminder.reminderId}`).expect(404);
        await r.api.get(`/v1/bookings/${b.bookingId}`).expect(404);
      }
      await r.verifyFeed();
    });

    /** The reminder.delete a request wrote, read back from the database (the feed is checked at the end). */
    async function deletedReminderDate(r: RaceCase, answer: Answer): Promise<string> {
      const [row]: Array<{ results: Array<{ date: string }> }> = await races.db.query(
        `SELECT results FROM events WHERE account_id = $1 AND api_request_id = $2 AND event_name = 'reminder.delete'`,
        [r.accountId, answer.requestId],
      );
      return row.results[0].date;
    }
  });

  describe('checklists', () => {
    it('disable and PATCH: a PATCH after the disable is refused; one that answered 200 shows in the disabled checklist', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const c = await createChecklist(r.api, p.propertyId);
        const [disable, patch] = await r.together(
          round,
          ['disable checklist', () => r.api.post(`/v1/checklists/${c.checklistId}/disable`)],
          ['PATCH checklist', () => r.api.patch(`/v1/checklists/${c.checklistId}`).send({ title: `Deep clean ${round}` })],
        );
        expectAnswer(disable, 200);
        expectAnswer(patch, 200, INVALID_STATE);
        const title = patch.status === 200 ? `Deep clean ${round}` : 'Turnover';
        expect(disable.body).toMatchObject({ disabled: true, title });
        r.wrote(disable, [`checklist.disable ${c.checklistId}`]);
        if (patch.status === 200) r.wrote(patch, [`checklist.update ${c.checklistId}`]);
      }
      await r.verifyFeed();
    });

    it.each([
      ['a job request', '/v1/jobRequests', 'jobRequest.created', 'jobRequestId'],
      ['a reminder', '/v1/reminders', 'reminder.create', 'reminderId'],
    ])('%s naming a checklist being disabled: copied before the disable, or refused after it', async (_what, path, eventName, idField) => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const c = await createChecklist(r.api, p.propertyId);
        const checklists = [{ checklistId: c.checklistId }];
        const body =
          path === '/v1/reminders'
            ? { title: 'Deep clean', date: '2030-03-01T10:00:00Z', propertyId: p.propertyId, checklists }
            : validJob(p.propertyId, { checklists });
        const [disable, create] = await r.together(
          round,
          ['disable checklist', () => r.api.post(`/v1/checklists/${c.checklistId}/disable`)],
          [`POST ${path} naming it`, () => r.api.post(path).send(body)],
        );
        expectAnswer(disable, 200);
        expectAnswer(create, 201, INVALID_STATE);
        r.wrote(disable, [`checklist.disable ${c.checklistId}`]);
        if (create.status === 201) {
          expect(create.body.checklists).toEqual(path === '/v1/reminders' ? checklists : [c.checklistId]);
          r.wrote(create, [`${eventName} ${create.body[idField]}`]);
        }
      }
      await r.verifyFeed();
    });
  });

  /** The booking's automatic (turnover) reminder. */
  async function turnoverOf(r: RaceCase, propertyId: string, sourceBookingId: string): Promise<{ reminderId: string; date: string }> {
    const listed = (await r.api.get(`/v1/reminders?${WINDOW}&propertyId=${propertyId}&limit=100`).expect(200)).body.data;
    const found = listed.find((x: any) => x.automatic && x.sourceBookingId === sourceBookingId);
    if (!found) throw new Error(`no turnover reminder for ${sourceBookingId}`);
    return found;
  }
});
