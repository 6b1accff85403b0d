import { DataSource } from 'typeorm';
import { PropertyResolver } from '../../src/modules/properties/property-resolver.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp, twoAccounts } from '../support/app';
import { pointersOf, uniq, validProperty } from '../support/properties';
import { statementsWaitingOnLock } from '../support/wait';

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

describe('properties', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;
  let other: TestAccount;
  let otherApi: ApiClient;

  beforeAll(async () => {
    t = await startApp();
    ({ account, api, other, otherApi } = await twoAccounts(t));
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
      // Nested objects keep the spec's field order (jsonb storage reorders keys).
      expect(JSON.stringify(got.body.bedDetails)).toBe(JSON.stringify(body.bedDetails));
      expect(JSON.stringify(got.body.details)).toBe(JSON.stringify(FULL_DETAILS));

      // Stored, just never returned.
      const [row] = await t.app
        .get(DataSource)
        .query(`SELECT disable_reminders_automation FROM properties WHERE id = $1`, [res.body.propertyId]);
      expect(row.disable_reminders_automation).toBe(true);
    });

    it('returns null for optional fields never set and stores the flag as false by default', async () => {
      const res = await api.post('/v1/properties').send(validProperty()).expect(201);
      expect(res.body).toMatchObject({ tags: null, type: null, bedDetails: null, details: null, note: null, pictureUrls: [] });
      const [row] = await t.app
        .get(DataSource)
        .query(`SELECT disable_reminders_automation FROM properties WHERE id = $1`, [res.body.propertyId]);
      expect(row.disable_reminders_automation).toBe(false);
    });

    it('accepts current IANA names the runtime resolves and an empty bedDetails list', async () => {
      const res = await api
        .post('/v1/properties')
        .send(validProperty({ timeZone: 'Asia/Kolkata', countryCode: 'IN', bedDetails: [] }))
        .expect(201);
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

  describe('update', () => {
    it('changes only the fields sent and merges details key by key', async () => {
      const created = await api
        .post('/v1/properties')
        .send(validProperty({ tags: ['a'], details: { access: 'old', parking: 'street', disableRemindersAutomation: true } }))
        .expect(201);
      const id = created.body.propertyId;

      const res = await api
        .patch(`/v1/properties/${id}`)
        .send({ name: 'Renamed flat', details: { access: 'new', wifiName: 'net' } })
        .expect(200);
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
      await api
        .patch(`/v1/properties/${id}`)
        .send({ details: { disableRemindersAutomation: false } })
        .expect(200);
      expect(await flag()).toBe(false);
      await api
        .patch(`/v1/properties/${id}`)
        .send({ details: { disableRemindersAutomation: true } })
        .expect(200);
      expect(await flag()).toBe(true);
    });

    it('replaces location (both coordinates) and re-derives the address; one coordinate is a 400', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const id = created.body.propertyId;
      const one = await api
        .patch(`/v1/properties/${id}`)
        .send({ location: { latitude: 10 } })
        .expect(400);
      expect(pointersOf(one)).toEqual(['#/location/longitude']);
      const other = await api
        .patch(`/v1/properties/${id}`)
        .send({ location: { longitude: 10 } })
        .expect(400);
      expect(pointersOf(other)).toEqual(['#/location/latitude']);

      const res = await api
        .patch(`/v1/properties/${id}`)
        .send({ location: { latitude: -33.8688, longitude: 151.2093 }, countryCode: 'AU', timeZone: 'Australia/Sydney' })
        .expect(200);
      expect(res.body.location).toEqual({ latitude: -33.8688, longitude: 151.2093 });
      expect(res.body.address).toBe('33.8688° S, 151.2093° E, Australia (Australia/Sydney)');
      const tzOnly = await api.patch(`/v1/properties/${id}`).send({ timeZone: 'UTC' }).expect(200);
      expect(tzOnly.body.address).toBe('33.8688° S, 151.2093° E, Australia (UTC)');
    });

    it('refuses null for required fields, clears optional ones with null, and validates like create', async () => {
      const created = await api
        .post('/v1/properties')
        .send(validProperty({ type: 'villa', tags: ['x'], details: { access: 'a' } }))
        .expect(201);
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
      await api
        .patch('/v1/properties/prop_01ARZ3NDEKTSV4RRFFQ69G5FAV')
        .send({ location: { latitude: 1, longitude: 1 } })
        .expect(404);
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

  describe('list filters (extension: name, sourceId)', () => {
    it('finds by a part of the name in any case, wildcards as written, and by exact sourceId; the cursor keeps the filter', async () => {
      const finder = clientFor(t, await createAccount(t));
      const made = [];
      for (const name of ['Harbour Loft 1', 'harbour loft 2', 'Harbour loft 3', 'Mountain 100% chalet', 'Mountain_hut'])
        made.push((await finder.post('/v1/properties').send(validProperty({ name })).expect(201)).body);
      const names = async (query: string) =>
        (await finder.get(`/v1/properties?${query}`).expect(200)).body.data.map((p: { name: string }) => p.name);
      expect(await names('name=HARBOUR%20LOFT')).toEqual(['Harbour Loft 1', 'harbour loft 2', 'Harbour loft 3']);
      expect(await names('name=100%25')).toEqual(['Mountain 100% chalet']);
      expect(await names('name=n_h')).toEqual(['Mountain_hut']);
      expect(await names('name=_')).toEqual(['Mountain_hut']);
      expect(await names(`sourceId=${made[1].sourceId}`)).toEqual(['harbour loft 2']);
      expect(await names(`sourceId=${made[1].sourceId}&name=mountain`)).toEqual([]);
      expect(await names(`sourceId=${made[1].sourceId.toUpperCase()}`)).toEqual([]);

      const first = (await finder.get('/v1/properties?name=harbour&limit=2').expect(200)).body;
      expect(first.hasMore).toBe(true);
      const next = (await finder.get(`/v1/properties?name=harbour&limit=2&cursor=${encodeURIComponent(first.nextCursor)}`).expect(200))
        .body;
      expect(next).toMatchObject({ data: [{ name: 'Harbour loft 3' }], hasMore: false, nextCursor: null });
      // A cursor belongs to its filter: with another one, or none, it is a 400.
      for (const query of ['name=mountain', 'name=harbour&sourceId=x', ''])
        expect((await finder.get(`/v1/properties?${query}&cursor=${encodeURIComponent(first.nextCursor)}`).expect(400)).body.code).toBe(
          'invalidCursor',
        );
      const plain = (await finder.get('/v1/properties?limit=2').expect(200)).body.nextCursor;
      expect((await finder.get(`/v1/properties?name=harbour&cursor=${encodeURIComponent(plain)}`).expect(400)).body.code).toBe(
        'invalidCursor',
      );
      expect((await finder.get('/v1/properties?name=').expect(400)).body.code).toBe('validationFailed');
    });
  });

  describe('sourceId uniqueness', () => {
    it('a duplicate sourceId on create is a 409 conflict carrying existingId', async () => {
      const body = validProperty();
      const first = await api.post('/v1/properties').send(body).expect(201);
      const res = await api
        .post('/v1/properties')
        .send({ ...body, name: 'Another' })
        .expect(409);
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
      const renamed = await api
        .patch(`/v1/properties/${b.body.propertyId}`)
        .send({ sourceId: `renamed-${uniq()}` })
        .expect(200);
      // The old sourceId is free again.
      await api
        .post('/v1/properties')
        .send(validProperty({ sourceId: b.body.sourceId }))
        .expect(201);
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
      await api
        .post('/v1/properties')
        .send(validProperty({ sourceId: created.body.sourceId }))
        .expect(201);
    });
  });

  describe('PropertyResolver', () => {
    const ctxOf = (accountId: string) => ({ accountId, requestId: `test-${uniq()}`, clientRequestId: `test-${uniq()}` });

    /** Opens a transaction that resolves the property (taking the resolver's FOR KEY SHARE lock) and keeps it open until release(). */
    async function holdResolverLock(propertyId: string): Promise<{ release: () => Promise<void> }> {
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let resolved!: () => void;
      const isResolved = new Promise<void>((resolve) => (resolved = resolve));
      const holder = uow.run(ctxOf(account.accountId), async (tx) => {
        await resolver.resolve(tx, { propertyId });
        resolved();
        await held;
      });
      await isResolved;
      return {
        release: async () => {
          release();
          await holder;
        },
      };
    }

    it('resolves by either identifier, refuses neither/both (400) and unknown or foreign ones (404 naming them)', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      const run = (accountId: string, ref: Record<string, string>) => uow.run(ctxOf(accountId), (tx) => resolver.resolve(tx, ref));
      const expected = {
        propertyId: created.body.propertyId,
        sourceId: created.body.sourceId,
        disableRemindersAutomation: false,
        timeZone: created.body.timeZone,
      };
      await expect(run(account.accountId, { propertyId: created.body.propertyId })).resolves.toEqual(expected);
      await expect(run(account.accountId, { sourcePropertyId: created.body.sourceId })).resolves.toEqual(expected);
      await expect(run(account.accountId, {})).rejects.toMatchObject({
        kind: 'invalid',
        extras: { errors: [{ pointer: '#/propertyId' }, { pointer: '#/sourcePropertyId' }] },
      });
      await expect(
        run(account.accountId, { propertyId: created.body.propertyId, sourcePropertyId: created.body.sourceId }),
      ).rejects.toMatchObject({ kind: 'invalid' });
      await expect(run(other.accountId, { propertyId: created.body.propertyId })).rejects.toMatchObject({
        kind: 'not_found',
        message: `Property with propertyId ${created.body.propertyId} was not found`,
      });
      await expect(run(account.accountId, { sourcePropertyId: 'abc' })).rejects.toMatchObject({
        message: 'Property with sourcePropertyId abc was not found',
      });
      // The write-only flag dependents act on (the bookings' reminders automation) comes with it.
      const quiet = await api
        .post('/v1/properties')
        .send(validProperty({ details: { disableRemindersAutomation: true } }))
        .expect(201);
      await expect(run(account.accountId, { propertyId: quiet.body.propertyId })).resolves.toMatchObject({
        disableRemindersAutomation: true,
      });
    });

    it('a transaction that resolved a property makes a concurrent delete wait for it; after the delete it is a 404', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const lock = await holdResolverLock(created.body.propertyId);
      let deletedAt = 0;
      const deletion = api.delete(`/v1/properties/${created.body.propertyId}`).then((res) => {
        deletedAt = Date.now();
        return res;
      });
      await statementsWaitingOnLock(t.app.get(DataSource)); // the delete waits on the FOR KEY SHARE lock
      expect(deletedAt).toBe(0);
      const releasedAt = Date.now();
      await lock.release();
      expect((await deletion).status).toBe(204);
      expect(deletedAt).toBeGreaterThanOrEqual(releasedAt);
      const uow = t.app.get(UnitOfWork);
      const resolver = t.app.get(PropertyResolver);
      await expect(
        uow.run(ctxOf(account.accountId), (tx) => resolver.resolve(tx, { propertyId: created.body.propertyId })),
      ).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('PATCH does not wait for a transaction holding the resolver lock (FOR KEY SHARE lets plain updates through)', async () => {
      const created = await api.post('/v1/properties').send(validProperty()).expect(201);
      const lock = await holdResolverLock(created.body.propertyId);
      try {
        await api.patch(`/v1/properties/${created.body.propertyId}`).send({ name: 'Not blocked' }).timeout(3000).expect(200);
      } finally {
        await lock.release();
      }
    });
  });
});
