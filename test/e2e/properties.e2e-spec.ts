import { DataSource } from 'typeorm';
import { requestFingerprint } from '../../src/platform/http/idempotency.rules';
import { IdempotencyStore } from '../../src/platform/http/idempotency.store';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { PropertyResolver } from '../../src/modules/properties/property-resolver.service';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';

let seq = 0;
const uniq = () => `${Date.now().toString(36)}-${++seq}`;

function validProperty(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    sourceId: `src-${uniq()}`,
    name: 'Sea view flat',
    countryCode: 'FR',
    timeZone: 'Europe/Paris',
    location: { latitude: 48.8566, longitude: 2.3522 },
    beds: 2,
    bedrooms: 1,
    bathrooms: 1,
    ...overrides,
  };
}

const FULL_DETAILS = {
  information: 'Top floor, no lift',
  access: 'Key box code 1234',
  garbage: 'Bins on Tuesday',
  parking: 'Street',
  wifiName: 'SeaView',
  wifiPassword: 'secret-pass',
  wifiDescription: 'Router in the hall',
  otherAttributes: [
    { label: 'Pool', value: 'Heated', group: 'Outdoor', pictures: ['https://images.example.com/pool.jpg'] },
    { label: 'Views', value: ['sea', 'mountain'] },
  ],
};

const pointersOf = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer).sort();

/**
 * The account's events. The feed only shows transactions older than every transaction still
 * running in the cluster (other test runs included), so wait until `count` events are visible.
 */
async function eventsOf(api: ApiClient, count = 0): Promise<Array<{ eventName: string; clientRequestId: string; apiRequestId: string; results: any[] }>> {
  const until = Date.now() + 5000;
  for (;;) {
    const res = await api.get('/v1/events?limit=100').expect(200);
    if (res.body.data.length >= count || Date.now() > until) return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('properties', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;
  let other: TestAccount;
  let otherApi: ApiClient;

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    api = clientFor(t, account);
    other = await createAccount(t);
    otherApi = clientFor(t, other);
  });
  afterAll(() => t.close());

  describe('create and read', () => {
    it('creates a property and returns the full read shape, without disableRemindersAutomation', async () => {
      const body = validProperty({
        type: 'apartment',
        tags: ['seaside', 'family'],
        bedDetails: [
          { bedType: 'king', twinable: false, displayLabel: 'Master bed', quantity: 1 },
          { bedType: 'sofabed', twinable: true, displayLabel: 'Living room', quantity: 2 },
        ],
        details: { ...FULL_DETAILS, disableRemindersAutomation: true },
        pictureUrl: 'legacy-picture-17',
      });
      const res = await api.post('/v1/properties').send(body).expect(201);
      expect(res.body).toEqual({
        propertyId: expect.stringMatching(/^prop_[0-9A-HJKMNP-TV-Z]{26}$/),
        sourceId: body.sourceId,
        name: 'Sea view flat',
        note: null,
        pictureUrls: [],
        tags: ['seaside', 'family'],
        location: { latitude: 48.8566, longitude: 2.3522 },
        timeZone: 'Europe/Paris',
        address: '48.8566° N, 2.3522° E, France (Europe/Paris)',
        type: 'apartment',
        countryCode: 'FR',
        bedrooms: 1,
        beds: 2,
        bathrooms: 1,
        bedDetails: body.bedDetails,
        details: FULL_DETAILS,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
      expect(JSON.stringify(res.body)).not.toContain('disableRemindersAutomation');

      const got = await api.get(`/v1/properties/${res.body.propertyId}`).expect(200);
      expect(got.body).toEqual(res.body);

      // Stored, just never returned.
      const [row] = await t.app.get(DataSource).query(`SELECT disable_reminders_automation FROM properties WHERE id = $1`, [res.body.propertyId]);
      expect(row.disable_reminders_automation).toBe(true);
    });

    it('returns null for optional fields never set and stores the flag as false by default', async () => {
      const res = await api.post('/v1/properties').send(validProperty()).expect(201);
      expect(res.body).toMatchObject({ tags: null, type: null, bedDetails: null, details: null, note: null, pictureUrls: [] });
      const [row] = await t.app.get(DataSource).query(`SELECT disable_reminders_automation FROM properties WHERE id = $1`, [res.body.propertyId]);
      expect(row.disable_reminders_automation).toBe(false);
    });

    it('accepts current IANA names the runtime resolves and an empty bedDetails list', async () => {
      const res = await api.post('/v1/properties').send(validProperty({ timeZone: 'Asia/Kolkata', countryCode: 'IN', bedDetails: [] })).expect(201);
      expect(res.body.timeZone).toBe('Asia/Kolkata');
      expect(res.body.address).toContain('India');
    });

    it('names every missing required field', async () => {
      const res = await api.post('/v1/properties').send({}).expect(400);
      expect(res.body.code).toBe('validationFailed');
      expect(pointersOf(res)).toEqual(
        ['#/bathrooms', '#/bedrooms', '#/beds', '#/countryCode', '#/location', '#/name', '#/sourceId', '#/timeZone'].sort(),
      );
    });

    it('unknown or malformed ids are 404, not 500', async () => {
      for (const id of ['prop_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', 'x'.repeat(300)]) {
        const res = await api.get(`/v1/properties/${id}`).expect(404);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(res.body.detail).toContain(id);
      }
    });
  });

  describe('limits at their bounds', () => {
    const s = (n: number) => 'x'.repeat(n);
    const attr = (over: Record<string, unknown>) => ({ details: { otherAttributes: [{ label: 'L', value: 'v', ...over }] } });
    const bed = (over: Record<string, unknown>) => ({ bedDetails: [{ bedType: 'queen', twinable: false, displayLabel: 'Q', quantity: 1, ...over }] });
    const tags = (n: number) => ({ tags: Array.from({ length: n }, (_, i) => `tag${i}`) });

    type Case = [string, Record<string, unknown>, boolean, string?];
    const cases: Case[] = [
      ['sourceId 4', { sourceId: `a${uniq()}`.slice(0, 4) }, false, '#/sourceId'],
      ['sourceId 5', { sourceId: null }, true],
      ['sourceId 100', { sourceId: 100 }, true],
      ['sourceId 101', { sourceId: 101 }, false, '#/sourceId'],
      ['name 2', { name: s(2) }, false, '#/name'],
      ['name 3', { name: s(3) }, true],
      ['name 100', { name: s(100) }, true],
      ['name 101', { name: s(101) }, false, '#/name'],
      ['latitude 90', { location: { latitude: 90, longitude: 0 } }, true],
      ['latitude -90', { location: { latitude: -90, longitude: 0 } }, true],
      ['latitude 90.0001', { location: { latitude: 90.0001, longitude: 0 } }, false, '#/location/latitude'],
      ['latitude -90.0001', { location: { latitude: -90.0001, longitude: 0 } }, false, '#/location/latitude'],
      ['longitude 180', { location: { latitude: 0, longitude: 180 } }, true],
      ['longitude -180', { location: { latitude: 0, longitude: -180 } }, true],
      ['longitude 180.0001', { location: { latitude: 0, longitude: 180.0001 } }, false, '#/location/longitude'],
      ['longitude -180.0001', { location: { latitude: 0, longitude: -180.0001 } }, false, '#/location/longitude'],
      ['latitude as string', { location: { latitude: '45', longitude: 0 } }, false, '#/location/latitude'],
      ['location with one coordinate', { location: { latitude: 45 } }, false, '#/location/longitude'],
      ['location as array', { location: [45, 3] }, false, '#/location'],
      ['tags 0 (empty list)', tags(0), false, '#/tags'],
      ['tags 1', tags(1), true],
      ['tags 10', tags(10), true],
      ['tags 11', tags(11), false, '#/tags'],
      ['tag of 50 chars', { tags: [s(50)] }, true],
      ['tag of 51 chars', { tags: [s(51)] }, false, '#/tags'],
      ['empty tag', { tags: [''] }, false, '#/tags'],
      ['tags as object', { tags: { a: 1 } }, false, '#/tags'],
      ['tags with a number', { tags: ['a', 2] }, false, '#/tags'],
      ['otherAttributes label 100', attr({ label: s(100) }), true],
      ['otherAttributes label 101', attr({ label: s(101) }), false, '#/details/otherAttributes/0/label'],
      ['otherAttributes value 500', attr({ value: s(500) }), true],
      ['otherAttributes value 501', attr({ value: s(501) }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value array of 500s', attr({ value: [s(500), s(500)] }), true],
      ['otherAttributes value array with a 501', attr({ value: [s(500), s(501)] }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value empty array', attr({ value: [] }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value number', attr({ value: 5 }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value missing', { details: { otherAttributes: [{ label: 'L' }] } }, false, '#/details/otherAttributes/0/value'],
      ['otherAttributes group 100', attr({ group: s(100) }), true],
      ['otherAttributes group 101', attr({ group: s(101) }), false, '#/details/otherAttributes/0/group'],
      ['otherAttributes pictures not URLs', attr({ pictures: ['not a url'] }), false, '#/details/otherAttributes/0/pictures'],
      ['displayLabel 100', bed({ displayLabel: s(100) }), true],
      ['displayLabel 101', bed({ displayLabel: s(101) }), false, '#/bedDetails/0/displayLabel'],
      ['bedType unknown', bed({ bedType: 'hammock' }), false, '#/bedDetails/0/bedType'],
      ['every bedType', { bedDetails: ['super-king', 'king', 'queen', 'twin', 'double', 'sofabed', 'child'].map((bedType) => ({ bedType, twinable: true, displayLabel: bedType, quantity: 1 })) }, true],
      ['quantity 0', bed({ quantity: 0 }), false, '#/bedDetails/0/quantity'],
      ['quantity 1.5', bed({ quantity: 1.5 }), false, '#/bedDetails/0/quantity'],
      ['twinable as string', bed({ twinable: 'yes' }), false, '#/bedDetails/0/twinable'],
      ['bedDetails item not an object', { bedDetails: [1] }, false, '#/bedDetails/0'],
      ['countryCode XX', { countryCode: 'XX' }, false, '#/countryCode'],
      ['countryCode lower case', { countryCode: 'us' }, false, '#/countryCode'],
      ['countryCode of 3 letters', { countryCode: 'USA' }, false, '#/countryCode'],
      ['timeZone Mars/Base', { timeZone: 'Mars/Base' }, false, '#/timeZone'],
      ['timeZone UTC', { timeZone: 'UTC' }, true],
      ['beds as string', { beds: '2' }, false, '#/beds'],
      ['beds 1.5', { beds: 1.5 }, false, '#/beds'],
      ['beds -1', { beds: -1 }, false, '#/beds'],
      ['beds 0', { beds: 0 }, true],
      ['bedrooms 1000', { bedrooms: 1000 }, true],
      ['bedrooms 1001', { bedrooms: 1001 }, false, '#/bedrooms'],
      ['bathrooms null', { bathrooms: null }, false, '#/bathrooms'],
      ['details as array', { details: [] }, false, '#/details'],
      ['details text of 5000', { details: { information: s(5000) } }, true],
      ['details text of 5001', { details: { information: s(5001) } }, false, '#/details/information'],
      ['disableRemindersAutomation as string', { details: { disableRemindersAutomation: 'true' } }, false, '#/details/disableRemindersAutomation'],
      ['type as number', { type: 3 }, false, '#/type'],
      ['pictureUrl empty', { pictureUrl: '' }, false, '#/pictureUrl'],
    ];

    // Rest parameters: rows without a pointer must not make jest think the test takes a done callback.
    it.each(cases)('%s', async (...[, overrides, ok, pointer]: Case) => {
      const body = validProperty(overrides);
      // Length cases build sourceIds of an exact size that stay unique per run.
      if (typeof overrides.sourceId === 'number') body.sourceId = uniq().padEnd(overrides.sourceId, 'x');
      if (overrides.sourceId === null) body.sourceId = uniq().padEnd(5, 'x').slice(-5);
      const res = await api.post('/v1/properties').send(body);
      if (ok) {
        expect(res.status).toBe(201);
      } else {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validationFailed');
        expect(pointersOf(res)).toContain(pointer);
      }
    });
  });

  describe('unknown fields', () => {
    it('rejects unknown fields at every depth and names each with a pointer', async () => {
      const res = await api
        .post('/v1/properties')
        .send(
          validProperty({
            colour: 'blue',
            location: { latitude: 1, longitude: 2, altitude: 3 },
            details: { wifiName: 'x', fax: '123', otherAttributes: [{ label: 'a', value: 'b', icon: 'x' }] },
            bedDetails: [
              { bedType: 'king', twinable: false, displayLabel: 'K', quantity: 1 },
              { bedType: 'king', twinable: false, displayLabel: 'K', quantity: 1, size: 'XL' },
            ],
          }),
        )
        .expect(400);
      expect(res.body.code).toBe('objectStrict');
      expect(pointersOf(res)).toEqual(
        ['#/colour', '#/location/altitude', '#/details/fax', '#/details/otherAttributes/0/icon', '#/bedDetails/1/size'].sort(),
      );
      expect(res.body.detail).toContain('details.otherAttributes[0].icon');
    });

    it('rejects read-only fields sent on create and update', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const res = await api.post('/v1/properties').send(validProperty({ propertyId: 'prop_x', note: 'n', pictureUrls: [] })).expect(400);
      expect(pointersOf(res)).toEqual(['#/note', '#/pictureUrls', '#/propertyId']);
      const patch = await api.patch(`/v1/properties/${created.body.propertyId}`).send({ address: 'x', location: { latitude: 1, longitude: 2, z: 0 } }).expect(400);
      expect(patch.body.code).toBe('objectStrict');
      expect(pointersOf(patch)).toEqual(['#/address', '#/location/z']);
    });
  });

  describe('update', () => {
    it('changes only the fields sent and merges details key by key', async () => {
      const created = await api
        .post('/v1/properties')
        .send(validProperty({ tags: ['a'], details: { access: 'old', parking: 'street', disableRemindersAutomation: true } }))
        .expect(201);
      const id = created.body.propertyId;

      const res = await api.patch(`/v1/properties/${id}`).send({ name: 'Renamed flat', details: { access: 'new', wifiName: 'net' } }).expect(200);
      expect(res.body).toEqual({
        ...created.body,
        name: 'Renamed flat',
        details: { access: 'new', parking: 'street', wifiName: 'net' },
        updatedAt: expect.any(String),
      });
      expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updatedAt).getTime());
      expect(JSON.stringify(res.body)).not.toContain('disableRemindersAutomation');
      expect((await api.get(`/v1/properties/${id}`).expect(200)).body).toEqual(res.body);

      const db = t.app.get(DataSource);
      const flag = async () => (await db.query(`SELECT disable_reminders_automation AS f FROM properties WHERE id = $1`, [id]))[0].f;
      expect(await flag()).toBe(true); // echoing details without the flag keeps it
      await api.patch(`/v1/properties/${id}`).send({ details: { disableRemindersAutomation: false } }).expect(200);
      expect(await flag()).toBe(false);
      await api.patch(`/v1/properties/${id}`).send({ details: { disableRemindersAutomation: true } }).expect(200);
      expect(await flag()).toBe(true);
    });

    it('replaces location (both coordinates) and re-derives the address; one coordinate is a 400', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const id = created.body.propertyId;
      const one = await api.patch(`/v1/properties/${id}`).send({ location: { latitude: 10 } }).expect(400);
      expect(pointersOf(one)).toEqual(['#/location/longitude']);
      const other = await api.patch(`/v1/properties/${id}`).send({ location: { longitude: 10 } }).expect(400);
      expect(pointersOf(other)).toEqual(['#/location/latitude']);

      const res = await api.patch(`/v1/properties/${id}`).send({ location: { latitude: -33.8688, longitude: 151.2093 }, countryCode: 'AU', timeZone: 'Australia/Sydney' }).expect(200);
      expect(res.body.location).toEqual({ latitude: -33.8688, longitude: 151.2093 });
      expect(res.body.address).toBe('33.8688° S, 151.2093° E, Australia (Australia/Sydney)');
      const tzOnly = await api.patch(`/v1/properties/${id}`).send({ timeZone: 'UTC' }).expect(200);
      expect(tzOnly.body.address).toBe('33.8688° S, 151.2093° E, Australia (UTC)');
    });

    it('refuses null for required fields, clears optional ones with null, and validates like create', async () => {
      const created = await api.post('/v1/properties').send(validProperty({ type: 'villa', tags: ['x'], details: { access: 'a' } })).expect(201);
      const id = created.body.propertyId;
      const nulls = await api.patch(`/v1/properties/${id}`).send({ name: null, beds: null, location: null, countryCode: null }).expect(400);
      expect(pointersOf(nulls)).toEqual(['#/beds', '#/countryCode', '#/location', '#/name']);
      const bad = await api.patch(`/v1/properties/${id}`).send({ tags: [], sourceId: 'abcd', beds: 1.5 }).expect(400);
      expect(pointersOf(bad)).toEqual(['#/beds', '#/sourceId', '#/tags']);

      const cleared = await api.patch(`/v1/properties/${id}`).send({ type: null, tags: null, details: null }).expect(200);
      expect(cleared.body).toMatchObject({ type: null, tags: null, details: null, name: created.body.name });
      const empty = await api.patch(`/v1/properties/${id}`).send({}).expect(200);
      expect(empty.body).toEqual(cleared.body);
    });

    it('returns 404 for unknown ids', async () => {
      await api.patch('/v1/properties/prop_01ARZ3NDEKTSV4RRFFQ69G5FAV').send({ name: 'abc' }).expect(404);
      await api.patch('/v1/properties/prop_01ARZ3NDEKTSV4RRFFQ69G5FAV').send({ location: { latitude: 1, longitude: 1 } }).expect(404);
    });
  });

  describe('tenancy', () => {
    it("another account's property is a 404 on get, patch and delete, and never listed", async () => {
      const mine = await api.post('/v1/properties').send(validProperty()).expect(201);
      const id = mine.body.propertyId;
      await otherApi.get(`/v1/properties/${id}`).expect(404);
      await otherApi.patch(`/v1/properties/${id}`).send({ name: 'Stolen' }).expect(404);
      await otherApi.patch(`/v1/properties/${id}`).send({ timeZone: 'UTC' }).expect(404);
      await otherApi.delete(`/v1/properties/${id}`).expect(404);
      const list = await otherApi.get('/v1/properties?limit=100').expect(200);
      expect(list.body.data.map((p: { propertyId: string }) => p.propertyId)).not.toContain(id);
      expect((await api.get(`/v1/properties/${id}`).expect(200)).body.name).toBe('Sea view flat');
    });

    it('the same sourceId may exist in two accounts', async () => {
      const body = validProperty();
      await api.post('/v1/properties').send(body).expect(201);
      await otherApi.post('/v1/properties').send(body).expect(201);
    });
  });

  describe('list', () => {
    let lister: ApiClient;
    let ids: string[];

    beforeAll(async () => {
      lister = clientFor(t, await createAccount(t));
      ids = [];
      for (let i = 0; i < 7; i++) ids.push((await lister.post('/v1/properties').send(validProperty()).expect(201)).body.propertyId);
    });

    it('pages through every property in propertyId order with no gaps or duplicates', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const res: any = await lister.get(`/v1/properties?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200);
        sizes.push(res.body.data.length);
        seen.push(...res.body.data.map((p: { propertyId: string }) => p.propertyId));
        expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(sizes).toEqual([3, 3, 1]);
      expect(seen).toEqual([...ids].sort());
    });

    it('uses the read shape and the default limit', async () => {
      const res = await lister.get('/v1/properties').expect(200);
      expect(res.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
      expect(res.body.data).toHaveLength(7);
      expect(res.body.data[0]).toEqual((await lister.get(`/v1/properties/${res.body.data[0].propertyId}`)).body);
      const exact = await lister.get('/v1/properties?limit=7').expect(200);
      expect(exact.body.hasMore).toBe(false);
      expect(exact.body.nextCursor).toBeNull();
    });

    it.each([
      ['limit=0', 'validationFailed'],
      ['limit=101', 'validationFailed'],
      ['limit=abc', 'validationFailed'],
      ['limit=1.5', 'validationFailed'],
      ['cursor=garbage', 'invalidCursor'],
      ['cursor=', 'validationFailed'],
      ['foo=bar', 'objectStrict'],
    ])('rejects %s', async (query, code) => {
      const res = await lister.get(`/v1/properties?${query}`).expect(400);
      expect(res.body.code).toBe(code);
    });

    it('accepts limit 1 and 100', async () => {
      expect((await lister.get('/v1/properties?limit=1').expect(200)).body.data).toHaveLength(1);
      expect((await lister.get('/v1/properties?limit=100').expect(200)).body.data).toHaveLength(7);
    });

    it('rejects a tampered cursor or one from another list', async () => {
      const res = await lister.get('/v1/properties?limit=2').expect(200);
      const [payload, tag] = res.body.nextCursor.split('.');
      const forged = `${Buffer.from(JSON.stringify(['prop_0'])).toString('base64url')}.${tag}`;
      expect((await lister.get(`/v1/properties?cursor=${forged}`).expect(400)).body.code).toBe('invalidCursor');
      expect((await lister.get(`/v1/properties?cursor=${payload}.AAAA${tag.slice(4)}`).expect(400)).body.code).toBe('invalidCursor');
      const { CursorCodec } = await import('../../src/platform/pagination/cursor');
      const foreign = t.app.get(CursorCodec).encode('bookings', [ids[0]]);
      expect((await lister.get(`/v1/properties?cursor=${foreign}`).expect(400)).body.code).toBe('invalidCursor');
    });
  });

  describe('sourceId uniqueness', () => {
    it('a duplicate sourceId on create is a 409 conflict carrying existingId', async () => {
      const body = validProperty();
      const first = await api.post('/v1/properties').send(body).expect(201);
      const res = await api.post('/v1/properties').send({ ...body, name: 'Another' }).expect(409);
      expect(res.body).toMatchObject({
        type: expect.stringMatching(/\/conflict$/),
        title: 'Conflict',
        status: 409,
        code: 'conflict',
        existingId: first.body.propertyId,
      });
      expect(res.body.detail).toContain(first.body.propertyId);
    });

    it('a PATCH to a taken sourceId is a 409; to its own sourceId is fine', async () => {
      const a = await api.post('/v1/properties').send(validProperty()).expect(201);
      const b = await api.post('/v1/properties').send(validProperty()).expect(201);
      const res = await api.patch(`/v1/properties/${b.body.propertyId}`).send({ sourceId: a.body.sourceId }).expect(409);
      expect(res.body).toMatchObject({ code: 'conflict', existingId: a.body.propertyId });
      await api.patch(`/v1/properties/${b.body.propertyId}`).send({ sourceId: b.body.sourceId }).expect(200);
      const renamed = await api.patch(`/v1/properties/${b.body.propertyId}`).send({ sourceId: `renamed-${uniq()}` }).expect(200);
      // The old sourceId is free again.
      await api.post('/v1/properties').send(validProperty({ sourceId: b.body.sourceId })).expect(201);
      expect(renamed.body.sourceId).toMatch(/^renamed-/);
    });

    it('concurrent creates with one sourceId: exactly one wins, the others get 409 with existingId', async () => {
      const body = validProperty();
      const results = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/properties').send(body)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      const winner = results.find((r) => r.status === 201)!.body.propertyId;
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.existingId).toBe(winner);
    });
  });

  describe('delete', () => {
    it('deletes (204, no body), then the property is gone', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const id = created.body.propertyId;
      const res = await api.delete(`/v1/properties/${id}`).expect(204);
      expect(res.text).toBe('');
      await api.get(`/v1/properties/${id}`).expect(404);
      await api.patch(`/v1/properties/${id}`).send({ name: 'abc' }).expect(404);
      await api.delete(`/v1/properties/${id}`).expect(404);
      // Its sourceId can be used again.
      await api.post('/v1/properties').send(validProperty({ sourceId: created.body.sourceId })).expect(201);
    });
  });

  describe('PropertyResolver', () => {
    const ctxOf = (accountId: string) => ({ accountId, requestId: `test-${uniq()}`, clientRequestId: `test-${uniq()}` });

    it('resolves by either identifier, refuses neither/both (400) and unknown or foreign ones (404 naming them)', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      const run = (accountId: string, ref: Record<string, string>) => uow.run(ctxOf(accountId), (tx) => resolver.resolve(tx, ref));
      const expected = { propertyId: created.body.propertyId, sourceId: created.body.sourceId };
      await expect(run(account.accountId, { propertyId: created.body.propertyId })).resolves.toEqual(expected);
      await expect(run(account.accountId, { sourcePropertyId: created.body.sourceId })).resolves.toEqual(expected);
      await expect(run(account.accountId, {})).rejects.toMatchObject({ kind: 'invalid', extras: { errors: [{ pointer: '#/propertyId' }, { pointer: '#/sourcePropertyId' }] } });
      await expect(run(account.accountId, { propertyId: created.body.propertyId, sourcePropertyId: created.body.sourceId })).rejects.toMatchObject({ kind: 'invalid' });
      await expect(run(other.accountId, { propertyId: created.body.propertyId })).rejects.toMatchObject({
        kind: 'not_found',
        message: `Property with propertyId ${created.body.propertyId} was not found`,
      });
      await expect(run(account.accountId, { sourcePropertyId: 'abc' })).rejects.toMatchObject({ message: 'Property with sourcePropertyId abc was not found' });
    });

    it('a transaction that resolved a property makes a concurrent delete wait for it; after the delete it is a 404', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let resolved!: () => void;
      const isResolved = new Promise<void>((resolve) => (resolved = resolve));
      const holder = uow.run(ctxOf(account.accountId), async (tx) => {
        await resolver.resolve(tx, { propertyId: created.body.propertyId });
        resolved();
        await held;
      });
      await isResolved;
      let deletedAt = 0;
      const deletion = api.delete(`/v1/properties/${created.body.propertyId}`).then((res) => {
        deletedAt = Date.now();
        return res;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(deletedAt).toBe(0); // still waiting on the FOR KEY SHARE lock
      const releasedAt = Date.now();
      release();
      await holder;
      expect((await deletion).status).toBe(204);
      expect(deletedAt).toBeGreaterThanOrEqual(releasedAt);
      await expect(uow.run(ctxOf(account.accountId), (tx) => resolver.resolve(tx, { propertyId: created.body.propertyId }))).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('PATCH does not wait for a transaction holding the resolver lock (FOR KEY SHARE lets plain updates through)', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let resolved!: () => void;
      const isResolved = new Promise<void>((resolve) => (resolved = resolve));
      const holder = uow.run(ctxOf(account.accountId), async (tx) => {
        await resolver.resolve(tx, { propertyId: created.body.propertyId });
        resolved();
        await held;
      });
      await isResolved;
      try {
        await api.patch(`/v1/properties/${created.body.propertyId}`).send({ name: 'Not blocked' }).timeout(3000).expect(200);
      } finally {
        release();
        await holder;
      }
    });
  });

  describe('events', () => {
    it('property.create/update/delete carry the read shape (never the flag) and the request ids', async () => {
      const evApi = clientFor(t, await createAccount(t));
      const created = await evApi
        .post('/v1/properties')
        .set('Idempotency-Key', `evt-key-${uniq()}`)
        .set('x-request-id', 'req-create-1')
        .send(validProperty({ details: { access: 'a', disableRemindersAutomation: true } }))
        .expect(201);
      const id = created.body.propertyId;
      const updated = await evApi.patch(`/v1/properties/${id}`).set('x-request-id', 'req-update-1').send({ name: 'New name', details: { disableRemindersAutomation: false } }).expect(200);
      await evApi.delete(`/v1/properties/${id}`).expect(204);

      const events = await eventsOf(evApi, 3);
      expect(events.map((e) => e.eventName)).toEqual(['property.create', 'property.update', 'property.delete']);
      const [create, update, del] = events;
      expect(create.results).toEqual([created.body]);
      expect(create.clientRequestId).toMatch(/^evt-key-/);
      expect(create.apiRequestId).toBe('req-create-1');
      expect(update.results).toEqual([updated.body]);
      expect(update.apiRequestId).toBe('req-update-1');
      expect(update.clientRequestId).toBe('req_req-update-1');
      expect(del.results).toEqual([updated.body]);
      expect(JSON.stringify(events)).not.toContain('disableRemindersAutomation');
      // A failed write, or an update with nothing in it, emits nothing.
      await evApi.post('/v1/properties').send(validProperty({ beds: -1 })).expect(400);
      const kept = await evApi.post('/v1/properties').send(validProperty()).expect(201);
      await evApi.patch(`/v1/properties/${kept.body.propertyId}`).send({}).expect(200);
      expect((await eventsOf(evApi, 4)).map((e) => e.eventName)).toEqual(['property.create', 'property.update', 'property.delete', 'property.create']);
    });
  });

  describe('Idempotency-Key on POST /v1/properties', () => {
    it('replays the first response with Idempotent-Replayed and creates one property and one event', async () => {
      const acct = await createAccount(t);
      const c = clientFor(t, acct);
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const first = await c.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await c.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      expect((await c.get('/v1/properties').expect(200)).body.data).toHaveLength(1);
      const [stored] = await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1`, [acct.accountId]);
      expect(stored.n).toBe(1);
      const events = await eventsOf(c, 1);
      expect(events).toHaveLength(1);
      expect(events[0].clientRequestId).toBe(key);
    });

    it('the same key with another body is a 422 idempotencyKeyReused', async () => {
      const key = `idem-${uniq()}`;
      await api.post('/v1/properties').set('Idempotency-Key', key).send(validProperty()).expect(201);
      const res = await api.post('/v1/properties').set('Idempotency-Key', key).send(validProperty()).expect(422);
      expect(res.body.code).toBe('idempotencyKeyReused');
    });

    it('the same key while the first request is in flight is a 409 idempotencyKeyInProgress', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const outcome = await t.app.get(IdempotencyStore).claim(account.accountId, key, requestFingerprint('POST', '/v1/properties', body));
      expect(outcome.kind).toBe('claimed');
      const res = await api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(409);
      expect(res.body.code).toBe('idempotencyKeyInProgress');
      await api.get(`/v1/properties?limit=100`).expect(200);
      const [row] = await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM properties WHERE account_id = $1 AND source_id = $2`, [account.accountId, body.sourceId]);
      expect(row.n).toBe(0);
    });

    it('keys are scoped per account', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      const a = await api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      const b = await otherApi.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.propertyId).not.toBe(a.body.propertyId);
    });

    it('a failed request does not consume the key', async () => {
      const key = `idem-${uniq()}`;
      const body = validProperty();
      await api.post('/v1/properties').set('Idempotency-Key', key).send({ ...body, beds: 'two' }).expect(400);
      const ok = await api.post('/v1/properties').set('Idempotency-Key', key).send(body).expect(201);
      expect(ok.headers['idempotent-replayed']).toBeUndefined();
      // A conflict (409) is a failure too: the key stays usable.
      const dupKey = `idem-${uniq()}`;
      await api.post('/v1/properties').set('Idempotency-Key', dupKey).send(body).expect(409);
      await api.post('/v1/properties').set('Idempotency-Key', dupKey).send(validProperty()).expect(201);
    });

    it('an invalid key header is a 400', async () => {
      const res = await api.post('/v1/properties').set('Idempotency-Key', 'k'.repeat(256)).send(validProperty()).expect(400);
      expect(res.body.code).toBe('invalidIdempotencyKey');
      await api.post('/v1/properties').set('Idempotency-Key', 'k'.repeat(255)).send(validProperty()).expect(201);
    });
  });
});
