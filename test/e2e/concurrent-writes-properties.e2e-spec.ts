import type { Test } from 'supertest';
import { EventsService } from '../../src/modules/events/events.service';
import { PropertiesRepository } from '../../src/modules/properties/properties.repository';
import { validBooking } from '../support/bookings';
import { createJob, validJob } from '../support/job-requests';
import { createProperty, uniq, validProperty } from '../support/properties';
import {
  backendPid,
  CONFLICT,
  expectAnswer,
  holdFirstCall,
  NOT_FOUND,
  oneWinner,
  RaceCase,
  ROUNDS,
  useRaceApp,
  waitUntilBlockedBy,
} from '../support/races';

/**
 * Conflicting writes at properties, sent at the same moment round after round: PATCH and DELETE of one
 * property, two DELETEs, two creates or PATCHes claiming one sourceId, a DELETE while something is
 * created on the property (a booking, a checklist, a reminder, a job request, a picture, a calendar
 * feed) or one of its pictures is deleted, a sourceId or details change while a booking or a job request
 * names the property or updates its details. Each round: no 5xx, every answer a success or a 404 / 409
 * problem, the state and the events feed exactly what the answers imply (test/support/races.ts).
 * The races these found are forced at the end, one interleaving each.
 */

describe('Concurrent conflicting writes: never a 5xx, state and events as the answers say', () => {
  const races = useRaceApp('properties');
  const { open } = races;

  describe('properties', () => {
    it('PATCH and DELETE of one property: the delete always wins; a PATCH that answered 200 came first', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const [patch, del] = await r.together(
          round,
          ['PATCH property', () => r.api.patch(`/v1/properties/${p.propertyId}`).send({ name: `Renamed ${round}` })],
          ['DELETE property', () => r.api.delete(`/v1/properties/${p.propertyId}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        r.wrote(del, [`property.delete ${p.propertyId}`]);
        if (patch.status === 200) r.wrote(patch, [`property.update ${p.propertyId}`]);
        r.check(del, 'property.delete', (shape) => expect(shape.name).toBe(patch.status === 200 ? `Renamed ${round}` : p.name));
        await r.api.get(`/v1/properties/${p.propertyId}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('two DELETEs of one property: one 204, one 404', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const answers = await r.together(
          round,
          ['DELETE property (1)', () => r.api.delete(`/v1/properties/${p.propertyId}`)],
          ['DELETE property (2)', () => r.api.delete(`/v1/properties/${p.propertyId}`)],
        );
        const [winner, loser] = oneWinner(answers, 204);
        expectAnswer(loser, NOT_FOUND);
        r.wrote(winner, [`property.delete ${p.propertyId}`]);
      }
      await r.verifyFeed();
    });

    it('two creates with one sourceId and no Idempotency-Key: one 201, one 409 naming it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const body = validProperty();
        const answers = await r.together(
          round,
          ['POST property (1)', () => r.api.post('/v1/properties').send(body)],
          ['POST property (2)', () => r.api.post('/v1/properties').send(body)],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body.existingId).toBe(created.body.propertyId);
        r.wrote(created, [`property.create ${created.body.propertyId}`]);
      }
      await r.verifyFeed();
    });

    it('two PATCHes giving two properties one sourceId: one 200, one 409', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const [a, b] = [await createProperty(r.api), await createProperty(r.api)];
        const sourceId = `src-${uniq()}`;
        const answers = await r.together(
          round,
          ['PATCH property a', () => r.api.patch(`/v1/properties/${a.propertyId}`).send({ sourceId })],
          ['PATCH property b', () => r.api.patch(`/v1/properties/${b.propertyId}`).send({ sourceId })],
        );
        const [winner, loser] = oneWinner(answers, 200);
        expectAnswer(loser, CONFLICT);
        expect(loser.body.existingId).toBe(winner.body.propertyId);
        r.wrote(winner, [`property.update ${winner.body.propertyId}`]);
      }
      await r.verifyFeed();
    });

    /**
     * What is created on a property while the property is deleted: either it came first (then the delete
     * takes it with it, with its event, or refuses with 409 because it must stay), or the delete came first
     * and the create is a 404.
     */
    interface Dependent {
      name: string;
      create(r: RaceCase, propertyId: string): Test;
      /** The events of its 201. */
      created(body: any, propertyId: string): string[];
      /** The events the property delete writes for it, or 'refuses' when its presence makes the delete a 409. */
      cascade: ((body: any) => string[]) | 'refuses';
      /** After a 204 delete that came after it: it is gone too. */
      gone?(r: RaceCase, body: any): Promise<void>;
    }
    const dependents: Dependent[] = [
      {
        name: 'a booking ahead (the delete refuses)',
        create: (r, propertyId) => r.api.post('/v1/bookings').send(validBooking(propertyId)),
        created: (body) => [`booking.create ${body.bookingId}`, 'reminder.create *'],
        cascade: 'refuses',
      },
      {
        name: 'a past booking (the delete takes it)',
        create: (r, propertyId) =>
          r.api.post('/v1/bookings').send(validBooking(propertyId, { startDate: '2020-01-01T15:00:00Z', endDate: '2020-01-04T10:00:00Z' })),
        created: (body) => [`booking.create ${body.bookingId}`, 'reminder.create *'],
        cascade: (body) => [`booking.delete ${body.bookingId}`, 'reminder.delete *'],
      },
      {
        name: 'a checklist',
        create: (r, propertyId) =>
          r.api
            .post('/v1/checklists')
            .send({ title: 'Turnover', propertyId, taskGroups: [{ title: 'Kitchen', tasks: [{ label: 'Wipe' }] }] }),
        created: (body) => [`checklist.create ${body.checklistId}`],
        cascade: (body) => [`checklist.delete ${body.checklistId}`],
      },
      {
        name: 'a reminder',
        create: (r, propertyId) => r.api.post('/v1/reminders').send({ title: 'Boiler', date: '2030-03-01T10:00:00Z', propertyId }),
        created: (body) => [`reminder.create ${body.reminderId}`],
        cascade: (body) => [`reminder.delete ${body.reminderId}`],
        gone: async (r, body) => void (await r.api.get(`/v1/reminders/${body.reminderId}`).expect(404)),
      },
      {
        name: 'a job request (the delete refuses)',
        create: (r, propertyId) => r.api.post('/v1/jobRequests').send(validJob(propertyId)),
        created: (body) => [`jobRequest.created ${body.jobRequestId}`],
        cascade: 'refuses',
      },
      {
        name: "a job request updating the property's details (the delete refuses)",
        create: (r, propertyId) =>
          r.api.post('/v1/jobRequests').send(validJob(propertyId, { property: { propertyId, access: 'Key box 12' } })),
        created: (body, propertyId) => [`property.update ${propertyId}`, `jobRequest.created ${body.jobRequestId}`],
        cascade: 'refuses',
      },
      {
        name: 'a picture',
        create: (r, propertyId) =>
          r.api.post('/v1/propertyPictures').send({ sourceId: `pic-${uniq()}`, sourceUrl: races.imageUrl, propertyId }),
        created: (body) => [`propertyPicture.create ${body.pictureId}`],
        cascade: (body) => [`propertyPicture.delete ${body.pictureId}`],
        gone: async (r, body) => void (await r.api.get(`/v1/propertyPictures/${body.pictureId}/content`).expect(404)),
      },
      {
        name: 'a calendar feed',
        create: (r, propertyId) =>
          r.api.post(`/v1/properties/${propertyId}/calendarFeeds`).send({ url: `https://localhost/cal/${uniq()}.ics` }),
        created: () => [],
        cascade: () => [],
        gone: async (r, body) => void (await r.api.get(`/v1/calendarFeeds/${body.id}`).expect(404)),
      },
    ];

    it.each(dependents.map((d) => [d.name, d] as const))('DELETE of a property while %s is created on it', async (_name, dependent) => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const [create, del] = await r.together(
          round,
          [`create ${dependent.name}`, () => dependent.create(r, p.propertyId)],
          ['DELETE property', () => r.api.delete(`/v1/properties/${p.propertyId}`)],
        );
        expectAnswer(create, 201, NOT_FOUND);
        if (create.status === 201) {
          r.wrote(create, dependent.created(create.body, p.propertyId));
          if (dependent.cascade === 'refuses') {
            expectAnswer(del, CONFLICT);
            await r.api.get(`/v1/properties/${p.propertyId}`).expect(200);
            continue;
          }
          expectAnswer(del, 204);
          r.wrote(del, [...dependent.cascade(create.body), `property.delete ${p.propertyId}`]);
          await dependent.gone?.(r, create.body);
        } else {
          expectAnswer(del, 204);
          r.wrote(del, [`property.delete ${p.propertyId}`]);
        }
        await r.api.get(`/v1/properties/${p.propertyId}`).expect(404);
      }
      await r.verifyFeed();
    });
    it('DELETE of a picture and of its property: the picture is deleted once, and property.delete lists it only if it took it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const pic = (
          await r.api
            .post('/v1/propertyPictures')
            .send({ sourceId: `pic-${uniq()}`, sourceUrl: races.imageUrl, propertyId: p.propertyId })
            .expect(201)
        ).body;
        const [delPicture, delProperty] = await r.together(
          round,
          ['DELETE picture', () => r.api.delete(`/v1/propertyPictures/${pic.pictureId}`)],
          ['DELETE property', () => r.api.delete(`/v1/properties/${p.propertyId}`)],
        );
        expectAnswer(delProperty, 204);
        expectAnswer(delPicture, 204, NOT_FOUND);
        const tookIt = delPicture.status === 404;
        if (!tookIt) r.wrote(delPicture, [`propertyPicture.delete ${pic.pictureId}`]);
        r.wrote(delProperty, [...(tookIt ? [`propertyPicture.delete ${pic.pictureId}`] : []), `property.delete ${p.propertyId}`]);
        r.check(delProperty, 'property.delete', (shape) => expect(shape.pictureUrls).toEqual(tookIt ? [pic.url] : []));
      }
      await r.verifyFeed();
    });

    it('a new sourceId for a property while a booking names it by the old one: the booking came first, or is a 404', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const sourceId = `src-${uniq()}`;
        const [patch, booking] = await r.together(
          round,
          ['PATCH property sourceId', () => r.api.patch(`/v1/properties/${p.propertyId}`).send({ sourceId })],
          [
            'POST booking by sourcePropertyId',
            () => r.api.post('/v1/bookings').send({ ...validBooking(p.propertyId), propertyId: undefined, sourcePropertyId: p.sourceId }),
          ],
        );
        expectAnswer(patch, 200);
        expectAnswer(booking, 201, NOT_FOUND);
        r.wrote(patch, [`property.update ${p.propertyId}`]);
        if (booking.status === 201) {
          expect(booking.body.propertyId).toBe(p.propertyId);
          r.wrote(booking, [`booking.create ${booking.body.bookingId}`, 'reminder.create *']);
        }
      }
      await r.verifyFeed();
    });

    it("a new sourceId for a property while a job request updates the property's details: both apply", async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const sourceId = `src-${uniq()}`;
        const [patch, job] = await r.together(
          round,
          ['PATCH property sourceId', () => r.api.patch(`/v1/properties/${p.propertyId}`).send({ sourceId })],
          [
            'POST job with details',
            () => r.api.post('/v1/jobRequests').send(validJob(p.propertyId, { property: { propertyId: p.propertyId, access: 'Key box' } })),
          ],
        );
        expectAnswer(patch, 200);
        expectAnswer(job, 201);
        r.wrote(patch, [`property.update ${p.propertyId}`]);
        r.wrote(job, [`property.update ${p.propertyId}`, `jobRequest.created ${job.body.jobRequestId}`]);
        const after = (await r.api.get(`/v1/properties/${p.propertyId}`).expect(200)).body;
        expect(after).toMatchObject({ sourceId, details: { access: 'Key box' } });
      }
      await r.verifyFeed();
    });

    it("a new sourceId for a property while a job's PATCH updates the property's details: both apply", async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const job = await createJob(r.api, p.propertyId);
        const sourceId = `src-${uniq()}`;
        const [patch, jobPatch] = await r.together(
          round,
          ['PATCH property sourceId', () => r.api.patch(`/v1/properties/${p.propertyId}`).send({ sourceId })],
          ['PATCH job with details', () => r.api.patch(`/v1/jobRequests/${job.jobRequestId}`).send({ property: { parking: 'Street' } })],
        );
        expectAnswer(patch, 200);
        expectAnswer(jobPatch, 200);
        r.wrote(patch, [`property.update ${p.propertyId}`]);
        r.wrote(jobPatch, [`property.update ${p.propertyId}`]);
        const after = (await r.api.get(`/v1/properties/${p.propertyId}`).expect(200)).body;
        expect(after).toMatchObject({ sourceId, details: { parking: 'Street' } });
      }
      await r.verifyFeed();
    });

    it("PATCH of a property's details while a job request updates others: no update is lost", async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const p = await createProperty(r.api);
        const [patch, job] = await r.together(
          round,
          ['PATCH property details', () => r.api.patch(`/v1/properties/${p.propertyId}`).send({ details: { parking: `Bay ${round}` } })],
          [
            'POST job with details',
            () => r.api.post('/v1/jobRequests').send(validJob(p.propertyId, { property: { propertyId: p.propertyId, access: 'Key box' } })),
          ],
        );
        expectAnswer(patch, 200);
        expectAnswer(job, 201);
        r.wrote(patch, [`property.update ${p.propertyId}`]);
        r.wrote(job, [`property.update ${p.propertyId}`, `jobRequest.created ${job.body.jobRequestId}`]);
        const after = (await r.api.get(`/v1/properties/${p.propertyId}`).expect(200)).body;
        expect(after.details).toEqual({ parking: `Bay ${round}`, access: 'Key box' });
      }
      await r.verifyFeed();
    });
  });

  /*
   * The interleavings the rounds above found wrong, forced one by one: the first request is held in the
   * middle of its transaction (a spy on a call it makes), the second is sent and waits for its rows, then
   * the first goes on.
   */
  describe('forced interleavings', () => {
    it.each([
      ['creates a job request with property details', 'POST job with details'],
      ["PATCHes a job's property details", 'PATCH job with details'],
    ])('a PATCH of the sourceId while a request that %s holds the property (key share, details next): both apply', async (_what, label) => {
      const r = await open();
      const p = await createProperty(r.api);
      const job = label.startsWith('PATCH') ? await createJob(r.api, p.propertyId) : undefined;
      // resolveForJob: the key share is held, the details' FOR NO KEY UPDATE comes next.
      const hold = holdFirstCall(
        races.t.app.get(PropertiesRepository),
        'findOne',
        (_m, _a, id, lock) => id === p.propertyId && lock === 'noKeyUpdate',
      );
      try {
        const first = r.send(
          label,
          job
            ? r.api.patch(`/v1/jobRequests/${job.jobRequestId}`).send({ property: { access: 'Key box' } })
            : r.api.post('/v1/jobRequests').send(validJob(p.propertyId, { property: { propertyId: p.propertyId, access: 'Key box' } })),
        );
        const [manager] = await hold.reached;
        const sourceId = `src-${uniq()}`;
        const patch = r.send('PATCH property sourceId', r.api.patch(`/v1/properties/${p.propertyId}`).send({ sourceId }));
        await waitUntilBlockedBy(races.db, await backendPid(manager));
        hold.release();
        const [firstAnswer, patchAnswer] = await Promise.all([first, patch]);
        expectAnswer(firstAnswer, job ? 200 : 201);
        expectAnswer(patchAnswer, 200);
        r.wrote(firstAnswer, [`property.update ${p.propertyId}`, ...(job ? [] : [`jobRequest.created ${firstAnswer.body.jobRequestId}`])]);
        r.wrote(patchAnswer, [`property.update ${p.propertyId}`]);
        expect((await r.api.get(`/v1/properties/${p.propertyId}`).expect(200)).body).toMatchObject({
          sourceId,
          details: { access: 'Key box' },
        });
      } finally {
        hold.restore();
      }
      await r.verifyFeed();
    });

    it('a property DELETE while a picture DELETE is uncommitted: property.delete does not list the picture', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      const pic = (
        await r.api
          .post('/v1/propertyPictures')
          .send({ sourceId: `pic-${uniq()}`, sourceUrl: races.imageUrl, propertyId: p.propertyId })
          .expect(201)
      ).body;
      // The picture's row is deleted, its event being written: the transaction is not committed yet.
      const hold = holdFirstCall(races.t.app.get(EventsService), 'publish', (_tx, eventName) => eventName === 'propertyPicture.delete');
      try {
        const delPicture = r.send('DELETE picture', r.api.delete(`/v1/propertyPictures/${pic.pictureId}`));
        const [tx] = await hold.reached;
        const delProperty = r.send('DELETE property', r.api.delete(`/v1/properties/${p.propertyId}`));
        await waitUntilBlockedBy(races.db, await backendPid(tx.manager));
        hold.release();
        const [picAnswer, propertyAnswer] = await Promise.all([delPicture, delProperty]);
        expectAnswer(picAnswer, 204);
        expectAnswer(propertyAnswer, 204);
        r.wrote(picAnswer, [`propertyPicture.delete ${pic.pictureId}`]);
        r.wrote(propertyAnswer, [`property.delete ${p.propertyId}`]);
        r.check(propertyAnswer, 'property.delete', (shape) => expect(shape.pictureUrls).toEqual([]));
      } finally {
        hold.restore();
      }
      await r.verifyFeed();
    });
  });
});
