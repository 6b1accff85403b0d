import { createBooking } from '../support/bookings';
import { createChecklist, createJob } from '../support/job-requests';
import { createProperty, uniq } from '../support/properties';
import { expectAnswer, KEY_KINDS, RaceCase, ROUNDS, useRaceApp } from '../support/races';
import { createSubscription } from '../support/webhooks-api';

/**
 * Lost updates: two PATCHes of different fields of one resource (a property, a booking, a checklist, a
 * job request, a webhook subscription, a calendar feed) sent at the same moment, round after round.
 * Each round: both answer 200 (never a 5xx), the resource afterwards carries both changes, and the events
 * feed holds exactly each PATCH's event (test/support/races.ts).
 */

describe.each(KEY_KINDS)('Concurrent conflicting writes with a %s key: never a 5xx, state and events as the answers say', (kind) => {
  const races = useRaceApp('lost-updates', kind);
  const { open } = races;

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
});
