import { suite } from '../support/app';
import { createBooking, validBooking } from '../support/bookings';
import { expectProblem } from '../support/problem';
import { pointersOf, uniq } from '../support/properties';

describe('bookings: create, read, update, dates, cancel, delete', () => {
  const s = suite({ property: true, otherProperty: true });

  const create = (overrides: Record<string, unknown> = {}) =>
    s.api.post('/v1/bookings').send(validBooking(s.property.propertyId, overrides));

  describe('POST /v1/bookings', () => {
    it('creates a booking (201) in the read shape of spec 2.4: guests show their names only', async () => {
      const body = validBooking(s.property.propertyId, {
        title: 'Family stay',
        tags: ['vip', 'late-checkout'],
        otherAttributes: [{ group: 'Access', pictures: ['https://images.example.com/door.png'], value: ['a', 'b'], label: 'Door code' }],
        guestDetails: [
          { sourceId: 'g-1', firstName: 'Ada', lastName: 'Lovelace', sourcePictureUrl: 'https://images.example.com/ada.png' },
          { sourceId: 'g-2', firstName: 'Charles' },
        ],
      });
      const res = await s.api.post('/v1/bookings').send(body).expect(201);
      const b = res.body;
      expect(b.bookingId).toMatch(/^bk_[0-9A-Z]{26}$/);
      expect(Object.keys(b)).toEqual([
        'bookingId',
        'sourceBookingId',
        'propertyId',
        'status',
        'startDate',
        'endDate',
        'title',
        'guestDetails',
        'numberOfGuests',
        'tags',
        'otherAttributes',
        'createdAt',
        'updatedAt',
      ]);
      expect(b).toMatchObject({
        sourceBookingId: body.sourceBookingId,
        propertyId: s.property.propertyId,
        status: 1,
        startDate: '2030-01-01T15:00:00.000Z',
        endDate: '2030-01-04T10:00:00.000Z',
        title: 'Family stay',
        numberOfGuests: 2,
        tags: ['vip', 'late-checkout'],
      });
      expect(b.guestDetails).toEqual([
        { firstName: 'Ada', lastName: 'Lovelace' },
        { firstName: 'Charles', lastName: null },
      ]);
      // otherAttributes come back in the spec's field order (jsonb reorders keys).
      expect(JSON.stringify(b.otherAttributes)).toBe(
        JSON.stringify([{ label: 'Door code', value: ['a', 'b'], group: 'Access', pictures: ['https://images.example.com/door.png'] }]),
      );
      expect(b.updatedAt).toBe(b.createdAt);
      // The rest of each guest is stored, never returned.
      const [row] = await s.db.query(`SELECT guest_details FROM bookings WHERE id = $1`, [b.bookingId]);
      expect(row.guest_details).toEqual([
        { sourceId: 'g-1', firstName: 'Ada', lastName: 'Lovelace', sourcePictureUrl: 'https://images.example.com/ada.png' },
        { sourceId: 'g-2', firstName: 'Charles' },
      ]);
      expect(JSON.stringify((await s.api.get(`/v1/bookings/${b.bookingId}`).expect(200)).body)).not.toMatch(/sourceId|sourcePictureUrl/);
    });

    it('optional fields left out or null are null; dates with offsets come back in UTC, to the millisecond', async () => {
      const res = await create({
        title: null,
        tags: null,
        otherAttributes: null,
        startDate: '2030-02-01T17:00:00+02:00',
        endDate: '2030-02-03T10:00:00.123456Z',
      }).expect(201);
      expect(res.body).toMatchObject({
        title: null,
        tags: null,
        otherAttributes: null,
        startDate: '2030-02-01T15:00:00.000Z',
        endDate: '2030-02-03T10:00:00.123Z',
      });
    });

    it('takes the property by sourcePropertyId; both, neither, unknown or another account’s property fail', async () => {
      const bySource = await create({ propertyId: undefined, sourcePropertyId: s.property.sourceId }).expect(201);
      expect(bySource.body.propertyId).toBe(s.property.propertyId);
      expect(pointersOf(await create({ sourcePropertyId: s.property.sourceId }).expect(400))).toEqual([
        '#/propertyId',
        '#/sourcePropertyId',
      ]);
      await create({ propertyId: undefined }).expect(400);
      const unknown = await create({ propertyId: 'prop_01ARZ3NDEKTSV4RRFFQ69G5FAV' }).expect(404);
      expect(unknown.body.detail).toContain('prop_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      await create({ propertyId: s.otherProperty.propertyId }).expect(404);
      await create({ propertyId: undefined, sourcePropertyId: s.otherProperty.sourceId }).expect(404);
    });

    it('a sourceBookingId the account already used is a 409 conflict carrying the existing bookingId; other accounts may use it', async () => {
      const first = await createBooking(s.api, s.property.propertyId);
      const res = await create({
        sourceBookingId: first.sourceBookingId,
        startDate: '2031-01-01T00:00:00Z',
        endDate: '2031-01-02T00:00:00Z',
      });
      const problem = expectProblem(res, 409, 'conflict', '/v1/bookings');
      expect(problem.title).toBe('Conflict');
      expect(problem.type).toMatch(/\/conflict$/);
      expect(problem.bookingId).toBe(first.bookingId);
      expect(problem.existingId).toBe(first.bookingId);
      expect(problem.detail).toContain(first.bookingId);
      expect(problem.detail).toMatch(/update the existing booking|update that booking instead/);
      await s.otherApi
        .post('/v1/bookings')
        .send(validBooking(s.otherProperty.propertyId, { sourceBookingId: first.sourceBookingId }))
        .expect(201);
    });

    it('concurrent creates with one sourceBookingId: exactly one 201, the others 409 with its id', async () => {
      const body = validBooking(s.property.propertyId);
      const results = await Promise.all(Array.from({ length: 6 }, () => s.api.post('/v1/bookings').send(body)));
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      for (const res of results.filter((r) => r.status !== 201)) {
        expect(res.status).toBe(409);
        expect(res.body.bookingId).toBe(created[0].body.bookingId);
      }
    });

    it('endDate must be after startDate (equal is refused, one millisecond after is a booking)', async () => {
      const same = await create({ startDate: '2030-03-01T10:00:00.000Z', endDate: '2030-03-01T10:00:00.000Z' }).expect(400);
      expect(same.body.errors).toEqual([{ pointer: '#/endDate', detail: expect.stringContaining('must be after startDate') }]);
      // The same instant written in two zones is still equal.
      await create({ startDate: '2030-03-01T12:00:00+02:00', endDate: '2030-03-01T10:00:00Z' }).expect(400);
      await create({ startDate: '2030-03-02T10:00:00.000Z', endDate: '2030-03-01T10:00:00.000Z' }).expect(400);
      await create({ startDate: '2030-03-01T10:00:00.000Z', endDate: '2030-03-01T10:00:00.001Z' }).expect(201);
    });

    it.each([
      ['2030-03-01', 'a date without a time'],
      ['2030-03-01T10:00:00', 'no time zone'],
      ['2030-02-30T10:00:00Z', '30 February'],
      ['2030-03-01T24:00:00Z', 'hour 24'],
      ['next tuesday', 'not a date'],
      [1900000000000, 'a number'],
      ['', 'empty'],
    ])('an invalid startDate (%p: %s) is a 400 at #/startDate', async (startDate: string | number, _what: string) => {
      const res = await create({ startDate }).expect(400);
      expect(res.body.code).toBe('validationFailed');
      expect(pointersOf(res)).toEqual(['#/startDate']);
      expect(res.body.errors[0].detail).toContain('ISO 8601 date-time');
    });

    it('a date whose instant falls outside the years 0001-9999 in UTC is a 400 (it could only be returned in a form the API refuses)', async () => {
      // Written in range, but the offset carries the instant past 9999-12-31 or before 0001-01-01 in UTC.
      expect(pointersOf(await create({ endDate: '9999-12-31T23:59:00-10:00' }).expect(400))).toEqual(['#/endDate']);
      expect(pointersOf(await create({ startDate: '0001-01-01T00:00:00+10:00' }).expect(400))).toEqual(['#/startDate']);
      // The last and first instants of the range, however written, are bookings that read back as written.
      const edge = await create({ startDate: '0001-01-01T00:00:00-01:00', endDate: '9999-12-31T23:59:59.999+00:00' }).expect(201);
      expect(edge.body).toMatchObject({ startDate: '0001-01-01T01:00:00.000Z', endDate: '9999-12-31T23:59:59.999Z' });
      await s.api
        .patch(`/v1/bookings/${edge.body.bookingId}/dates`)
        .send({ startDate: edge.body.startDate, endDate: edge.body.endDate })
        .expect(200);
    });

    it('required fields are required', async () => {
      for (const field of ['sourceBookingId', 'startDate', 'endDate', 'numberOfGuests', 'guestDetails']) {
        const res = await create({ [field]: undefined }).expect(400);
        expect(res.body.errors).toEqual([{ pointer: `#/${field}`, detail: `${field} is required` }]);
        await create({ [field]: null }).expect(400);
      }
      const guest = await create({ guestDetails: [{ lastName: 'X' }] }).expect(400);
      expect(pointersOf(guest)).toEqual(['#/guestDetails/0/firstName', '#/guestDetails/0/sourceId']);
    });

    it('limits, each at its bound and one past it', async () => {
      const ok = (overrides: Record<string, unknown>) => create(overrides).expect(201);
      const bad = async (overrides: Record<string, unknown>, pointer: string) =>
        expect(pointersOf(await create(overrides).expect(400))).toEqual([pointer]);
      const guest = (g: Record<string, unknown>) => ({ guestDetails: [{ sourceId: 'g', firstName: 'A', ...g }] });
      const attr = (a: Record<string, unknown>) => ({ otherAttributes: [{ label: 'L', value: 'v', ...a }] });

      await ok({ sourceBookingId: `${uniq()}`.padEnd(100, 'x') });
      await bad({ sourceBookingId: 'x'.repeat(101) }, '#/sourceBookingId');
      await bad({ sourceBookingId: '' }, '#/sourceBookingId');
      await ok({ title: 'x' });
      await ok({ title: 'x'.repeat(200) });
      await bad({ title: 'x'.repeat(201) }, '#/title');
      await bad({ title: '' }, '#/title');
      await ok({ numberOfGuests: 1 });
      await ok({ numberOfGuests: 1000 });
      await bad({ numberOfGuests: 0 }, '#/numberOfGuests');
      await bad({ numberOfGuests: 1001 }, '#/numberOfGuests');
      await bad({ numberOfGuests: 2.5 }, '#/numberOfGuests');
      await bad({ numberOfGuests: '2' }, '#/numberOfGuests');
      await bad({ guestDetails: [] }, '#/guestDetails');
      await ok({ guestDetails: Array.from({ length: 100 }, (_, i) => ({ sourceId: `g${i}`, firstName: 'A' })) });
      await bad({ guestDetails: Array.from({ length: 101 }, (_, i) => ({ sourceId: `g${i}`, firstName: 'A' })) }, '#/guestDetails');
      await bad({ guestDetails: {} }, '#/guestDetails');
      for (const field of ['sourceId', 'firstName', 'lastName']) {
        await ok(guest({ [field]: 'x'.repeat(100) }));
        await bad(guest({ [field]: 'x'.repeat(101) }), `#/guestDetails/0/${field}`);
        await bad(guest({ [field]: '' }), `#/guestDetails/0/${field}`);
      }
      await ok(guest({ sourcePictureUrl: `https://images.example.com/${'p'.repeat(2000)}` }));
      await bad(guest({ sourcePictureUrl: 'not a url' }), '#/guestDetails/0/sourcePictureUrl');
      await bad(guest({ sourcePictureUrl: 'ftp://images.example.com/a.png' }), '#/guestDetails/0/sourcePictureUrl');
      await ok({ tags: ['t'] });
      await ok({ tags: Array.from({ length: 10 }, (_, i) => `tag${i}`) });
      await bad({ tags: [] }, '#/tags');
      await bad({ tags: Array.from({ length: 11 }, (_, i) => `tag${i}`) }, '#/tags');
      await ok({ tags: ['x'.repeat(50)] });
      await bad({ tags: ['x'.repeat(51)] }, '#/tags');
      await ok(attr({ label: 'x'.repeat(100), value: 'v'.repeat(500), group: 'g'.repeat(100) }));
      await bad(attr({ label: 'x'.repeat(101) }), '#/otherAttributes/0/label');
      await bad(attr({ value: 'v'.repeat(501) }), '#/otherAttributes/0/value');
      await bad(attr({ value: ['v'.repeat(501)] }), '#/otherAttributes/0/value');
      await bad(attr({ group: 'g'.repeat(101) }), '#/otherAttributes/0/group');
      await bad(attr({ label: undefined }), '#/otherAttributes/0/label');
      await ok({ otherAttributes: Array.from({ length: 100 }, () => ({ label: 'L', value: 'v' })) });
      await bad({ otherAttributes: Array.from({ length: 101 }, () => ({ label: 'L', value: 'v' })) }, '#/otherAttributes');
    });

    it('rejects unknown fields at every depth (objectStrict), status included', async () => {
      for (const [overrides, pointer] of [
        [{ status: 2 }, '#/status'],
        [{ bookingId: 'bk_x' }, '#/bookingId'],
        [{ guestDetails: [{ sourceId: 'g', firstName: 'A', email: 'a@example.com' }] }, '#/guestDetails/0/email'],
        [{ otherAttributes: [{ label: 'L', value: 'v', icon: 'x' }] }, '#/otherAttributes/0/icon'],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await create(overrides).expect(400);
        expect(res.body.code).toBe('objectStrict');
        expect(pointersOf(res)).toEqual([pointer]);
      }
    });
  });

  describe('GET /v1/bookings/{bookingId}', () => {
    it('reads a booking; unknown, malformed and another account’s ids are 404', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      expect((await s.api.get(`/v1/bookings/${booking.bookingId}`).expect(200)).body).toEqual(booking);
      expectProblem(await s.api.get('/v1/bookings/bk_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'notFound');
      expectProblem(await s.api.get('/v1/bookings/nope'), 404, 'notFound');
      expectProblem(await s.api.get('/v1/bookings/bk_%00'), 404, 'notFound');
      expectProblem(await s.otherApi.get(`/v1/bookings/${booking.bookingId}`), 404, 'notFound');
      await s.api.get(`/v1/bookings/${booking.bookingId}?x=1`).expect(400);
    });
  });

  describe('PATCH /v1/bookings/{bookingId}', () => {
    it('replaces the fields sent, clears the nullable ones with null, keeps the status', async () => {
      const booking = await createBooking(s.api, s.property.propertyId, {
        title: 'Old',
        tags: ['a'],
        otherAttributes: [{ label: 'L', value: 'v' }],
      });
      const res = await s.api
        .patch(`/v1/bookings/${booking.bookingId}`)
        .send({
          title: 'New',
          numberOfGuests: 4,
          guestDetails: [{ sourceId: 'g9', firstName: 'Grace', lastName: 'Hopper' }],
          tags: ['b', 'c'],
        })
        .expect(200);
      expect(res.body).toMatchObject({
        bookingId: booking.bookingId,
        status: 1,
        title: 'New',
        numberOfGuests: 4,
        guestDetails: [{ firstName: 'Grace', lastName: 'Hopper' }],
        tags: ['b', 'c'],
        otherAttributes: [{ label: 'L', value: 'v' }],
        startDate: booking.startDate,
        endDate: booking.endDate,
        createdAt: booking.createdAt,
      });
      expect(res.body.updatedAt > booking.updatedAt).toBe(true);
      const cleared = await s.api
        .patch(`/v1/bookings/${booking.bookingId}`)
        .send({ title: null, tags: null, otherAttributes: null })
        .expect(200);
      expect(cleared.body).toMatchObject({ title: null, tags: null, otherAttributes: null, numberOfGuests: 4 });
    });

    it('an empty body changes nothing (same updatedAt)', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      expect((await s.api.patch(`/v1/bookings/${booking.bookingId}`).send({}).expect(200)).body).toEqual(booking);
    });

    it('refuses null for required fields, empty lists, dates, status and unknown fields', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const patch = (body: Record<string, unknown>) => s.api.patch(`/v1/bookings/${booking.bookingId}`).send(body);
      expect(pointersOf(await patch({ numberOfGuests: null }).expect(400))).toEqual(['#/numberOfGuests']);
      expect(pointersOf(await patch({ guestDetails: null }).expect(400))).toEqual(['#/guestDetails']);
      expect(pointersOf(await patch({ guestDetails: [] }).expect(400))).toEqual(['#/guestDetails']);
      expect(pointersOf(await patch({ tags: [] }).expect(400))).toEqual(['#/tags']);
      expect(pointersOf(await patch({ tags: Array(11).fill('t') }).expect(400))).toEqual(['#/tags']);
      await patch({ numberOfGuests: 1001 }).expect(400);
      for (const field of ['startDate', 'endDate', 'status', 'sourceBookingId', 'propertyId']) {
        const res = await patch({ [field]: 'x' }).expect(400);
        expect(res.body.code).toBe('objectStrict');
      }
      expect((await s.api.get(`/v1/bookings/${booking.bookingId}`).expect(200)).body).toEqual(booking);
    });
  });

  describe('PATCH /v1/bookings/{bookingId}/dates', () => {
    it('moves the stay and marks the booking changed (status 2), again and again', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const res = await s.api
        .patch(`/v1/bookings/${booking.bookingId}/dates`)
        .send({ startDate: '2030-05-01T15:00:00Z', endDate: '2030-05-03T10:00:00+02:00' })
        .expect(200);
      expect(res.body).toMatchObject({ status: 2, startDate: '2030-05-01T15:00:00.000Z', endDate: '2030-05-03T08:00:00.000Z' });
      const again = await s.api
        .patch(`/v1/bookings/${booking.bookingId}/dates`)
        .send({ startDate: '2030-05-02T15:00:00Z', endDate: '2030-05-04T10:00:00Z' })
        .expect(200);
      expect(again.body.status).toBe(2);
    });

    it('both dates required, endDate after startDate, nothing else', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const dates = (body: Record<string, unknown>) => s.api.patch(`/v1/bookings/${booking.bookingId}/dates`).send(body);
      expect(pointersOf(await dates({ startDate: '2030-05-01T15:00:00Z' }).expect(400))).toEqual(['#/endDate']);
      expect(pointersOf(await dates({}).expect(400))).toEqual(['#/endDate', '#/startDate']);
      expect(pointersOf(await dates({ startDate: '2030-05-01T15:00:00Z', endDate: '2030-05-01T15:00:00Z' }).expect(400))).toEqual([
        '#/endDate',
      ]);
      expect(pointersOf(await dates({ startDate: '2030-05-01', endDate: '2030-05-03T10:00:00Z' }).expect(400))).toEqual(['#/startDate']);
      const extra = await dates({ startDate: '2030-05-01T15:00:00Z', endDate: '2030-05-03T10:00:00Z', title: 'x' }).expect(400);
      expect(extra.body.code).toBe('objectStrict');
      expect((await s.api.get(`/v1/bookings/${booking.bookingId}`).expect(200)).body.status).toBe(1);
    });

    it('a cancelled booking cannot change dates: 409 invalidState naming its status', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      await s.api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
      const res = await s.api
        .patch(`/v1/bookings/${booking.bookingId}/dates`)
        .send({ startDate: '2030-05-01T15:00:00Z', endDate: '2030-05-03T10:00:00Z' });
      const problem = expectProblem(res, 409, 'invalidState');
      expect(problem.detail).toContain('cancelled (status 3)');
      expect(problem.status).toBe(409);
      expect(res.body.bookingId).toBe(booking.bookingId);
    });
  });

  describe('POST /v1/bookings/{bookingId}/cancel', () => {
    it('cancels (status 3, 200 with the booking); cancelling again changes nothing; no body accepted', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const res = await s.api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
      expect(res.body).toMatchObject({ bookingId: booking.bookingId, status: 3, startDate: booking.startDate });
      const again = await s.api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
      expect(again.body).toEqual(res.body);
      const withBody = await s.api.post(`/v1/bookings/${booking.bookingId}/cancel`).send({ reason: 'x' }).expect(400);
      expect(withBody.body.code).toBe('objectStrict');
      // A cancelled booking can still be updated (its guests, tags...).
      await s.api.patch(`/v1/bookings/${booking.bookingId}`).send({ title: 'Cancelled stay' }).expect(200);
    });
  });

  describe('DELETE /v1/bookings/{bookingId}', () => {
    it('deletes (204, no body); afterwards it is a 404 and its sourceBookingId is free again', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const res = await s.api.delete(`/v1/bookings/${booking.bookingId}`).expect(204);
      expect(res.text).toBe('');
      await s.api.get(`/v1/bookings/${booking.bookingId}`).expect(404);
      await s.api.delete(`/v1/bookings/${booking.bookingId}`).expect(404);
      await create({ sourceBookingId: booking.sourceBookingId }).expect(201);
    });
  });

  it('another account’s booking is a 404 on every route and never changes', async () => {
    const booking = await createBooking(s.api, s.property.propertyId);
    const id = booking.bookingId;
    expectProblem(await s.otherApi.get(`/v1/bookings/${id}`), 404, 'notFound');
    expectProblem(await s.otherApi.patch(`/v1/bookings/${id}`).send({ title: 'x' }), 404, 'notFound');
    expectProblem(
      await s.otherApi.patch(`/v1/bookings/${id}/dates`).send({ startDate: '2030-05-01T15:00:00Z', endDate: '2030-05-03T10:00:00Z' }),
      404,
      'notFound',
    );
    expectProblem(await s.otherApi.post(`/v1/bookings/${id}/cancel`), 404, 'notFound');
    expectProblem(await s.otherApi.delete(`/v1/bookings/${id}`), 404, 'notFound');
    const listed = await s.otherApi.get('/v1/bookings?dateFrom=2000-01-01T00:00:00Z&dateTo=2100-01-01T00:00:00Z&limit=100').expect(200);
    expect(listed.body.data.map((b: { bookingId: string }) => b.bookingId)).not.toContain(id);
    expect((await s.api.get(`/v1/bookings/${id}`).expect(200)).body).toEqual(booking);
  });
});
