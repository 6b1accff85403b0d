import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Test } from 'supertest';
import { DataSource } from 'typeorm';
import { EventsService } from '../../src/modules/events/events.service';
import { PropertiesRepository } from '../../src/modules/properties/properties.repository';
import { WebhookSubscriptionsRepository } from '../../src/modules/webhooks/webhook-subscriptions.repository';
import { startApp, TestApp } from '../support/app';
import { createBooking, validBooking } from '../support/bookings';
import { TINY_JPEG } from '../support/images';
import { createChecklist, createJob, jobInStatus, validJob } from '../support/job-requests';
import { createProperty, uniq, validProperty } from '../support/properties';
import { explainJobRace, JobAct, jobRequest } from '../support/job-races';
import {
  Answer,
  backendPid,
  CONFLICT,
  expectAnswer,
  holdFirstCall,
  INVALID_STATE,
  NOT_FOUND,
  RaceCase,
  waitUntilBlockedBy,
} from '../support/races';
import { dropRedisPrefix } from '../support/test-env';
import { createSubscription, hookUrl, openStored } from '../support/webhooks-api';

/**
 * "Test the unhappy paths as carefully as the happy ones: … replays, races." Conflicting requests are
 * sent at the same moment at the same resources, round after round, and for each round:
 * - no answer is a 5xx (a deadlock, a serialization failure or a constraint violation that reaches the
 *   client is a bug), and every answer is one a client can act on: its success, or a 404 / 409 problem
 *   document with the code the rules give;
 * - the state afterwards is the one the answers imply (a DELETE answered 204 and a PATCH answered 200:
 *   the PATCH came first, so the deleted shape carries its change and the resource is gone);
 * - the events feed holds exactly the events each answer implies, request by request (none for a
 *   failed write, none lost, cascades included).
 * Where both orders are legitimate, either is accepted; the state machine of job requests is modelled
 * below and each round must match one order of the two, answers, final state and events alike.
 */

const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-concurrent-writes`;
/** Rounds of each race: enough for both orders to show up, few enough for a 2-core machine. */
const ROUNDS = 12;
const WINDOW = 'dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z';

describe('Concurrent conflicting writes: never a 5xx, state and events as the answers say', () => {
  let t: TestApp;
  let db: DataSource;
  let images: Server;
  let imageUrl: string;

  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '200000', TEST_HELPERS_ENABLED: 'true', REDIS_PREFIX });
    db = t.app.get(DataSource);
    images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/img.jpg`;
  });
  afterAll(async () => {
    images?.closeAllConnections();
    await new Promise((resolve) => images?.close(resolve));
    await t?.close();
    await dropRedisPrefix(t.config.redisUrl, REDIS_PREFIX);
  });

  const open = () => RaceCase.open(t);

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
        create: (r, propertyId) => r.api.post('/v1/propertyPictures').send({ sourceId: `pic-${uniq()}`, sourceUrl: imageUrl, propertyId }),
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
            .send({ sourceId: `pic-${uniq()}`, sourceUrl: imageUrl, propertyId: p.propertyId })
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

  describe('two PATCHes of different fields of one resource: neither is lost', () => {
    interface Patchable {
      create(r: RaceCase, propertyId: string): Promise<string>;
      path(id: string): string;
      read(r: RaceCase, id: string, propertyId: string): Promise<any>;
      /** The event each PATCH writes, if the resource has events. */
      event?: (id: string) => string;
      /** Two PATCH bodies, and what the resource reads as once both applied. */
      a: Record<string, unknown>;
      b: Record<string, unknown>;
      both: Record<string, unknown>;
    }
    const get = async (r: RaceCase, path: string) => (await r.api.get(path).expect(200)).body;
    const PATCHABLE: Record<string, Patchable> = {
      property: {
        create: async (r) => (await createProperty(r.api)).propertyId,
        path: (id) => `/v1/properties/${id}`,
        read: (r, id) => get(r, `/v1/properties/${id}`),
        event: (id) => `property.update ${id}`,
        a: { name: 'Harbour loft' },
        b: { tags: ['seaside'] },
        both: { name: 'Harbour loft', tags: ['seaside'] },
      },
      booking: {
        create: async (r, propertyId) => (await createBooking(r.api, propertyId)).bookingId,
        path: (id) => `/v1/bookings/${id}`,
        read: (r, id) => get(r, `/v1/bookings/${id}`),
        event: (id) => `booking.update ${id}`,
        a: { title: 'Family stay' },
        b: { numberOfGuests: 5 },
        both: { title: 'Family stay', numberOfGuests: 5 },
      },
      checklist: {
        create: async (r, propertyId) => (await createChecklist(r.api, propertyId)).checklistId,
        path: (id) => `/v1/checklists/${id}`,
        read: async (r, id, propertyId) =>
          (await get(r, `/v1/properties/${propertyId}/checklists`)).data.find((c: any) => c.checklistId === id),
        event: (id) => `checklist.update ${id}`,
        a: { title: 'Deep clean' },
        b: { description: 'Between guests' },
        both: { title: 'Deep clean', description: 'Between guests' },
      },
      'job request': {
        create: async (r, propertyId) => (await createJob(r.api, propertyId)).jobRequestId,
        path: (id) => `/v1/jobRequests/${id}`,
        read: (r, id) => get(r, `/v1/jobRequests/${id}`),
        event: (id) => `jobRequest.updated ${id}`,
        a: { message: 'Bring towels' },
        b: { offeredPrice: 80 },
        both: { note: 'Bring towels', offeredPrice: 80 },
      },
      'webhook subscription': {
        create: async (r) => (await createSubscription(r.api)).id,
        path: (id) => `/v1/webhooks/${id}`,
        read: async (r, id) => (await get(r, '/v1/webhooks')).data.find((s: any) => s.id === id),
        a: { eventFilters: ['booking.*'] },
        b: { enabled: false },
        both: { eventFilters: ['booking.*'], enabled: false },
      },
      'calendar feed': {
        create: async (r, propertyId) =>
          (
            await r.api
              .post(`/v1/properties/${propertyId}/calendarFeeds`)
              .send({ url: `https://localhost/cal/${uniq()}.ics` })
              .expect(201)
          ).body.id,
        path: (id) => `/v1/calendarFeeds/${id}`,
        read: (r, id) => get(r, `/v1/calendarFeeds/${id}`),
        a: { label: 'Airbnb' },
        b: { checkInTime: '15:00' },
        both: { label: 'Airbnb', checkInTime: '15:00' },
      },
    };

    it.each(Object.keys(PATCHABLE))('%s', async (kind) => {
      const { create, path, read, event, a, b, both } = PATCHABLE[kind];
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS / 2; round++) {
        const id = await create(r, p.propertyId);
        const answers = await r.together(
          round,
          [`PATCH ${kind} ${Object.keys(a)}`, () => r.api.patch(path(id)).send(a)],
          [`PATCH ${kind} ${Object.keys(b)}`, () => r.api.patch(path(id)).send(b)],
        );
        for (const answer of answers) {
          expectAnswer(answer, 200);
          if (event) r.wrote(answer, [event(id)]);
        }
        expect(await read(r, id, p.propertyId)).toMatchObject(both);
      }
      await r.verifyFeed();
    });
  });

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
      const [row]: Array<{ results: Array<{ date: string }> }> = await db.query(
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

  describe('job requests', () => {
    /** Each race: the status the job starts in and the two actions sent at once. */
    const RACES: Array<[from: number, a: JobAct, b: JobAct]> = [
      [1, 'accept', 'cancel'],
      [1, 'accept', 'acceptBob'],
      [1, 'accept', 'decline'],
      [1, 'decline', 'declineBob'],
      [1, 'patch', 'cancel'],
      [2, 'start', 'cancel'],
      [2, 'start', 'cancelByCleaner'],
      [2, 'patch', 'cancelByCleaner'],
      [2, 'cancel', 'cancelByCleaner'],
      [9, 'acceptChanges', 'cancel'],
      [9, 'declineChanges', 'cancelByCleaner'],
      [9, 'acceptChanges', 'declineChanges'],
      [9, 'patch', 'acceptChanges'],
      [5, 'complete', 'cancel'],
      [5, 'complete', 'patch'],
      [1, 'hostComment', 'cancel'],
      [2, 'providerComment', 'cancel'],
      [7, 'paySuccessful', 'payFailed'],
      [1, 'paySuccessful', 'cancel'],
    ];
    const JOB_ROUNDS = 6;

    it.each(RACES)('from status %i: %s and %s at once match one order of the two', async (from, actA, actB) => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < JOB_ROUNDS; round++) {
        const job = await jobInStatus(r.api, p.propertyId, from);
        const id: string = job.jobRequestId;
        const [a, b] = await r.together(round, [actA, () => jobRequest(r.api, id, actA)], [actB, () => jobRequest(r.api, id, actB)]);
        const after = (await r.api.get(`/v1/jobRequests/${id}`).expect(200)).body;
        const [{ payment_status: payment }] = await db.query(`SELECT payment_status FROM job_requests WHERE id = $1`, [id]);

        const [x, y] = explainJobRace({ status: from, declined: [], payment: null }, [actA, a], [actB, b], {
          status: after.status,
          payment,
        });
        for (const [answer, step] of [
          [a, x],
          [b, y],
        ] as const) {
          r.wrote(
            answer,
            step.events.map((name) => `${name} ${name === 'comment.new' ? '*' : id}`),
          );
          for (const name of step.events.filter((n) => n.startsWith('jobRequest.') && n !== 'jobRequest.paymentStatusChanged')) {
            r.check(answer, name, (shape) => expect(shape.status).toBe(step.state.status));
          }
        }
        if (actA.endsWith('Comment') && a.status === 201) {
          const comments = (await r.api.get(`/v1/jobRequests/${id}/comments`).expect(200)).body.data;
          expect(comments.map((comment: any) => comment.commentId)).toContain(a.body.commentId);
        }
      }
      await r.verifyFeed();
    });
  });

  describe('webhook subscriptions', () => {
    it('PATCH and DELETE of one subscription: the delete always wins', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const [patch, del] = await r.together(
          round,
          ['PATCH webhook', () => r.api.patch(`/v1/webhooks/${sub.id}`).send({ eventFilters: ['booking.*'], enabled: false })],
          ['DELETE webhook', () => r.api.delete(`/v1/webhooks/${sub.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        if (patch.status === 200) expect(patch.body).toMatchObject({ id: sub.id, eventFilters: ['booking.*'], enabled: false });
        const listed = (await r.api.get('/v1/webhooks').expect(200)).body.data;
        expect(listed.map((s: any) => s.id)).not.toContain(sub.id);
      }
      await r.verifyFeed();
    });

    it('rotateSecret twice at once: both 200, and the two secrets they returned are the current and the previous one', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const answers = await r.together(
          round,
          ['rotate (1)', () => r.api.post(`/v1/webhooks/${sub.id}/rotateSecret`)],
          ['rotate (2)', () => r.api.post(`/v1/webhooks/${sub.id}/rotateSecret`)],
        );
        for (const answer of answers) expectAnswer(answer, 200);
        const returned = answers.map((answer) => answer.body.signingSecret);
        expect(new Set(returned).size).toBe(2);
        const [row] = await db.query(`SELECT signing_secret, previous_secret FROM webhook_subscriptions WHERE id = $1`, [sub.id]);
        expect([openStored(row.signing_secret, sub.id), openStored(row.previous_secret, sub.id)].sort()).toEqual([...returned].sort());
      }
      await r.verifyFeed();
    });

    it('a test delivery while the subscription is deleted: 202 (then deleted with it) or 404, never a delivery left behind', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const [test, del] = await r.together(
          round,
          ['POST test delivery', () => r.api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'booking.create' })],
          ['DELETE webhook', () => r.api.delete(`/v1/webhooks/${sub.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(test, 202, NOT_FOUND);
        const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]);
        expect(count).toBe(0);
      }
      await r.verifyFeed();
    });

    it('two creates with one url: one 201, one 409 naming it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const url = hookUrl();
        const answers = await r.together(
          round,
          ['POST webhook (1)', () => r.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })],
          ['POST webhook (2)', () => r.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body.existingId).toBe(created.body.id);
      }
      await r.verifyFeed();
    });

    it('two PATCHes giving two subscriptions one url: one 200, one 409 naming it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const [a, b] = [await createSubscription(r.api), await createSubscription(r.api)];
        const url = hookUrl();
        const answers = await r.together(
          round,
          ['PATCH webhook a url', () => r.api.patch(`/v1/webhooks/${a.id}`).send({ url })],
          ['PATCH webhook b url', () => r.api.patch(`/v1/webhooks/${b.id}`).send({ url })],
        );
        const [winner, loser] = oneWinner(answers, 200);
        expectAnswer(loser, CONFLICT);
        expect(loser.body.existingId).toBe(winner.body.id);
      }
      await r.verifyFeed();
    });
  });

  describe('calendar feeds', () => {
    const feedUrl = () => `https://localhost/cal/${uniq()}.ics`;

    it('PATCH and DELETE of one feed: the delete always wins', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const feed = (await r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url: feedUrl() }).expect(201)).body;
        const [patch, del] = await r.together(
          round,
          ['PATCH feed', () => r.api.patch(`/v1/calendarFeeds/${feed.id}`).send({ label: `Airbnb ${round}`, checkInTime: '15:00' })],
          ['DELETE feed', () => r.api.delete(`/v1/calendarFeeds/${feed.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        if (patch.status === 200) expect(patch.body).toMatchObject({ id: feed.id, label: `Airbnb ${round}`, checkInTime: '15:00' });
        await r.api.get(`/v1/calendarFeeds/${feed.id}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('a sync request while the feed is deleted: 202 or 404, and the feed is gone', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const feed = (await r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url: feedUrl() }).expect(201)).body;
        const [sync, del] = await r.together(
          round,
          ['POST feed sync', () => r.api.post(`/v1/calendarFeeds/${feed.id}/sync`)],
          ['DELETE feed', () => r.api.delete(`/v1/calendarFeeds/${feed.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(sync, 202, NOT_FOUND);
        if (sync.status === 202) expect(sync.body).toMatchObject({ id: feed.id });
        await r.api.get(`/v1/calendarFeeds/${feed.id}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('two creates with one url on one property: one 201, one 409 naming it', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS / 2; round++) {
        const url = feedUrl();
        const answers = await r.together(
          round,
          ['POST feed (1)', () => r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url })],
          ['POST feed (2)', () => r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url })],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body.existingId).toBe(created.body.id);
      }
      await r.verifyFeed();
    });
  });

  /*
   * The interleavings the rounds above found wrong, forced one by one: the first request is held in the
   * middle of its transaction (a spy on a call it makes), the second is sent and waits for its rows (or,
   * for the test delivery, completes), then the first goes on.
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
        t.app.get(PropertiesRepository),
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
        await waitUntilBlockedBy(db, await backendPid(manager));
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
          .send({ sourceId: `pic-${uniq()}`, sourceUrl: imageUrl, propertyId: p.propertyId })
          .expect(201)
      ).body;
      // The picture's row is deleted, its event being written: the transaction is not committed yet.
      const hold = holdFirstCall(t.app.get(EventsService), 'publish', (_tx, eventName) => eventName === 'propertyPicture.delete');
      try {
        const delPicture = r.send('DELETE picture', r.api.delete(`/v1/propertyPictures/${pic.pictureId}`));
        const [tx] = await hold.reached;
        const delProperty = r.send('DELETE property', r.api.delete(`/v1/properties/${p.propertyId}`));
        await waitUntilBlockedBy(db, await backendPid(tx.manager));
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

    it('a test delivery whose subscription is deleted between finding it and writing the delivery: 404', async () => {
      const r = await open();
      const sub = await createSubscription(r.api);
      const hold = holdFirstCall(
        t.app.get(WebhookSubscriptionsRepository),
        'find',
        (_a, id, manager) => id === sub.id && manager !== undefined,
        { after: true },
      );
      try {
        const test = r.send('POST test delivery', r.api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'booking.create' }));
        await hold.reached;
        expectAnswer(await r.send('DELETE webhook', r.api.delete(`/v1/webhooks/${sub.id}`)), 204);
        hold.release();
        expectAnswer(await test, NOT_FOUND);
      } finally {
        hold.restore();
      }
      await r.verifyFeed();
    });
  });

  /** Of two answers exactly one has the status: [that one, the other]. */
  function oneWinner(answers: Answer[], status: number): [Answer, Answer] {
    for (const answer of answers) if (answer.status >= 500) expectAnswer(answer, status);
    const winners = answers.filter((answer) => answer.status === status);
    if (winners.length !== 1) throw new Error(`expected exactly one ${status}: ${answers.map((a) => `${a.label} ${a.status}`).join(', ')}`);
    const [winner] = winners;
    return [winner, answers.find((answer) => answer !== winner)!];
  }

  async function turnoverOf(r: RaceCase, propertyId: string, sourceBookingId: string): Promise<{ reminderId: string; date: string }> {
    const listed = (await r.api.get(`/v1/reminders?${WINDOW}&propertyId=${propertyId}&limit=100`).expect(200)).body.data;
    const found = listed.find((x: any) => x.automatic && x.sourceBookingId === sourceBookingId);
    if (!found) throw new Error(`no turnover reminder for ${sourceBookingId}`);
    return found;
  }
});
