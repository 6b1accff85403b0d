import { clientFor, createAccount, suite } from '../support/app';
import { at } from '../support/bookings';
import { feedEvents } from '../support/events';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

function checklistBody(propertyId: string) {
  return { title: 'Turnover clean', propertyId, taskGroups: [{ title: 'Kitchen', tasks: [{ label: 'Wipe the counters' }] }] };
}

describe('reminders', () => {
  const s = suite({ property: true, otherProperty: true });
  let checklistId: string;

  beforeAll(async () => {
    checklistId = (await s.api.post('/v1/checklists').send(checklistBody(s.property.propertyId)).expect(201)).body.checklistId;
  });

  const valid = (overrides: Record<string, unknown> = {}) => ({
    title: 'Check the boiler',
    date: '2030-01-04T10:00:00Z',
    propertyId: s.property.propertyId,
    ...overrides,
  });
  const create = (overrides: Record<string, unknown> = {}) => s.api.post('/v1/reminders').send(valid(overrides));
  const settings = (jobRequestSettings: Record<string, unknown>) => create({ jobRequestSettings });
  const time = (tm: Record<string, unknown>) => settings({ time: { type: 'fixed', startTime: '2030-01-04T11:00:00Z', ...tm } });

  describe('POST /v1/reminders', () => {
    it('creates a reminder with every field of spec 2.5 and answers it in full', async () => {
      const res = await create({
        propertyId: undefined,
        sourcePropertyId: s.property.sourceId,
        date: '2030-01-04T12:00:00+02:00',
        sourceBookingId: 'bk-ext-1',
        sourceId: 'rem-ext-1',
        actionable: true,
        checklists: [{ checklistId }],
        jobRequestSettings: {
          message: 'Please bring extra towels',
          offeredPriceCurrency: 'EUR',
          offeredPrice: 45.5,
          time: {
            durationInMinutes: 30,
            durationInHours: 2,
            endTime: '2030-01-04T15:00:00+02:00',
            startTime: '2030-01-04T11:00:00Z',
            type: 'flexible',
          },
        },
      }).expect(201);
      const r = res.body;
      expect(r.reminderId).toMatch(/^rem_[0-9A-Z]{26}$/);
      expect(Object.keys(r)).toEqual([
        'reminderId',
        'propertyId',
        'title',
        'date',
        'sourceBookingId',
        'sourceId',
        'actionable',
        'checklists',
        'jobRequestSettings',
        'automatic',
        'firedAt',
        'createdAt',
        'updatedAt',
      ]);
      expect(r).toMatchObject({
        propertyId: s.property.propertyId,
        title: 'Check the boiler',
        date: '2030-01-04T10:00:00.000Z',
        sourceBookingId: 'bk-ext-1',
        sourceId: 'rem-ext-1',
        actionable: true,
        checklists: [{ checklistId }],
        automatic: false,
        firedAt: null,
      });
      // The settings come back in the spec's field order, times in UTC.
      expect(JSON.stringify(r.jobRequestSettings)).toBe(
        JSON.stringify({
          time: {
            type: 'flexible',
            startTime: '2030-01-04T11:00:00.000Z',
            endTime: '2030-01-04T13:00:00.000Z',
            durationInHours: 2,
            durationInMinutes: 30,
          },
          offeredPrice: 45.5,
          offeredPriceCurrency: 'EUR',
          message: 'Please bring extra towels',
        }),
      );
      expect(r.updatedAt).toBe(r.createdAt);
      expect((await s.api.get(`/v1/reminders/${r.reminderId}`).expect(200)).body).toEqual(r);
    });

    it('the optional fields default to null, false and []', async () => {
      const res = await create({
        sourceBookingId: null,
        sourceId: null,
        actionable: null,
        checklists: null,
        jobRequestSettings: null,
      }).expect(201);
      expect(res.body).toMatchObject({
        sourceBookingId: null,
        sourceId: null,
        actionable: false,
        checklists: [],
        jobRequestSettings: null,
      });
      expect((await create({ checklists: [], jobRequestSettings: {} }).expect(201)).body).toMatchObject({
        checklists: [],
        jobRequestSettings: {},
      });
    });

    it('title, date and the property are required; date must be a date-time', async () => {
      expect(pointersOf(await create({ title: undefined }).expect(400))).toEqual(['#/title']);
      expect(pointersOf(await create({ date: undefined }).expect(400))).toEqual(['#/date']);
      for (const date of ['2030-01-04', '2030-01-04T10:00:00', '2030-02-30T10:00:00Z', 'soon']) {
        expect(pointersOf(await create({ date }).expect(400))).toEqual(['#/date']);
      }
      expect(pointersOf(await create({ propertyId: undefined }).expect(400))).toEqual(['#/propertyId', '#/sourcePropertyId']);
      await create({ propertyId: s.otherProperty.propertyId }).expect(404);
      await create({ propertyId: undefined, sourcePropertyId: s.otherProperty.sourceId }).expect(404);
    });

    it('limits, each at its bound and one past it', async () => {
      await create({ title: 'x' }).expect(201);
      await create({ title: 'x'.repeat(200) }).expect(201);
      expect(pointersOf(await create({ title: 'x'.repeat(201) }).expect(400))).toEqual(['#/title']);
      expect(pointersOf(await create({ title: '' }).expect(400))).toEqual(['#/title']);
      for (const field of ['sourceBookingId', 'sourceId']) {
        await create({ [field]: 'x'.repeat(100) }).expect(201);
        expect(pointersOf(await create({ [field]: 'x'.repeat(101) }).expect(400))).toEqual([`#/${field}`]);
      }
      expect(pointersOf(await create({ actionable: 'yes' }).expect(400))).toEqual(['#/actionable']);
      await settings({ message: 'abc' }).expect(201);
      await settings({ message: 'x'.repeat(500) }).expect(201);
      expect(pointersOf(await settings({ message: 'ab' }).expect(400))).toEqual(['#/jobRequestSettings/message']);
      expect(pointersOf(await settings({ message: 'x'.repeat(501) }).expect(400))).toEqual(['#/jobRequestSettings/message']);
      await settings({ offeredPrice: 0 }).expect(201);
      expect(pointersOf(await settings({ offeredPrice: -0.01 }).expect(400))).toEqual(['#/jobRequestSettings/offeredPrice']);
      expect(pointersOf(await settings({ offeredPrice: '10' }).expect(400))).toEqual(['#/jobRequestSettings/offeredPrice']);
      await settings({ offeredPriceCurrency: 'USD' }).expect(201);
      for (const currency of ['usd', 'EURO', 'XYZ', '']) {
        expect(pointersOf(await settings({ offeredPriceCurrency: currency }).expect(400))).toEqual([
          '#/jobRequestSettings/offeredPriceCurrency',
        ]);
      }
      for (const field of ['durationInHours', 'durationInMinutes']) {
        await time({ [field]: 1 }).expect(201);
        await time({ [field]: 999 }).expect(201);
        for (const bad of [0, 1000, 1.5, '2']) {
          const res = await time({ [field]: bad }).expect(400);
          expect(pointersOf(res)).toEqual([`#/jobRequestSettings/time/${field}`]);
        }
      }
      const zero = await time({ durationInHours: 0 }).expect(400);
      expect(zero.body.errors[0].detail).toContain('leave it out rather than send 0');
    });

    it('the job time object: type fixed or flexible, startTime required, endTime after startTime', async () => {
      await time({ type: 'flexible' }).expect(201);
      expect(pointersOf(await time({ type: 'asap' }).expect(400))).toEqual(['#/jobRequestSettings/time/type']);
      expect(pointersOf(await time({ type: undefined }).expect(400))).toEqual(['#/jobRequestSettings/time/type']);
      expect(pointersOf(await time({ startTime: undefined }).expect(400))).toEqual(['#/jobRequestSettings/time/startTime']);
      expect(pointersOf(await time({ startTime: '2030-01-04' }).expect(400))).toEqual(['#/jobRequestSettings/time/startTime']);
      expect(pointersOf(await time({ endTime: '2030-01-04T11:00:00Z' }).expect(400))).toEqual(['#/jobRequestSettings/time/endTime']);
      await time({ endTime: '2030-01-04T11:00:00.001Z' }).expect(201);
      expect(pointersOf(await settings({ time: 'tomorrow' }).expect(400))).toEqual(['#/jobRequestSettings/time']);
    });

    it('checklists must be the account’s, enabled, on the reminder’s property, each once', async () => {
      const other = await createProperty(s.api);
      const elsewhere = (await s.api.post('/v1/checklists').send(checklistBody(other.propertyId)).expect(201)).body.checklistId;
      const foreign = (await s.otherApi.post('/v1/checklists').send(checklistBody(s.otherProperty.propertyId)).expect(201)).body
        .checklistId;
      const unknown = await create({ checklists: [{ checklistId }, { checklistId: 'chk_01ARZ3NDEKTSV4RRFFQ69G5FAV' }] }).expect(400);
      expect(unknown.body.errors).toEqual([{ pointer: '#/checklists/1/checklistId', detail: expect.stringContaining('was not found') }]);
      expect(pointersOf(await create({ checklists: [{ checklistId: foreign }] }).expect(400))).toEqual(['#/checklists/0/checklistId']);
      expect(pointersOf(await create({ checklists: [{ checklistId }, { checklistId }] }).expect(400))).toEqual([
        '#/checklists/1/checklistId',
      ]);
      const wrongProperty = await create({ checklists: [{ checklistId: elsewhere }] }).expect(400);
      expect(wrongProperty.body.errors[0]).toEqual({
        pointer: '#/checklists/0/checklistId',
        detail: expect.stringContaining('belongs to property'),
      });
      expect(pointersOf(await create({ checklists: [{}] }).expect(400))).toEqual(['#/checklists/0/checklistId']);
      const disabled = (await s.api.post('/v1/checklists').send(checklistBody(s.property.propertyId)).expect(201)).body.checklistId;
      await s.api.post(`/v1/checklists/${disabled}/disable`).expect(200);
      expectProblem(await create({ checklists: [{ checklistId: disabled }] }), 409, 'invalidState');
      const many = [];
      for (let i = 0; i < 21; i++)
        many.push((await s.api.post('/v1/checklists').send(checklistBody(s.property.propertyId)).expect(201)).body.checklistId);
      await create({ checklists: many.slice(0, 20).map((id) => ({ checklistId: id })) }).expect(201);
      expect(pointersOf(await create({ checklists: many.map((id) => ({ checklistId: id })) }).expect(400))).toEqual(['#/checklists']);
    });

    it('rejects unknown fields at every depth (objectStrict), automatic and firedAt included', async () => {
      for (const [overrides, pointer] of [
        [{ automatic: true }, '#/automatic'],
        [{ firedAt: null }, '#/firedAt'],
        [{ checklists: [{ checklistId, title: 'x' }] }, '#/checklists/0/title'],
        [{ jobRequestSettings: { serviceProviders: [] } }, '#/jobRequestSettings/serviceProviders'],
        [
          { jobRequestSettings: { time: { type: 'fixed', startTime: '2030-01-04T11:00:00Z', timezone: 'UTC' } } },
          '#/jobRequestSettings/time/timezone',
        ],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await create(overrides).expect(400);
        expect(res.body.code).toBe('objectStrict');
        expect(pointersOf(res)).toEqual([pointer]);
      }
    });
  });

  describe('GET /v1/reminders', () => {
    it('lists the reminders dated in [dateFrom, dateTo), by date then id, with a cursor bound to its query', async () => {
      const a = clientFor(s.t, await createAccount(s.t));
      const p1 = await createProperty(a);
      const p2 = await createProperty(a);
      const make = async (day: number, propertyId: string) =>
        (
          await a
            .post('/v1/reminders')
            .send({ title: 'R', date: at(day), propertyId })
            .expect(201)
        ).body.reminderId as string;
      const before = await make(9.999, p1.propertyId);
      const atFrom = await make(10, p1.propertyId);
      const tie1 = await make(12, p2.propertyId);
      const tie2 = await make(12, p1.propertyId);
      const inside = await make(15, p2.propertyId);
      const atTo = await make(20, p1.propertyId);
      const q = (extra = '') => `/v1/reminders?dateFrom=${encodeURIComponent(at(10))}&dateTo=${encodeURIComponent(at(20))}${extra}`;
      const all = await a.get(q('&limit=100')).expect(200);
      expect(all.body.data.map((r: { reminderId: string }) => r.reminderId)).toEqual([atFrom, tie1, tie2, inside]);
      expect(all.body).toMatchObject({ nextCursor: null, hasMore: false });
      for (const excluded of [before, atTo]) expect(JSON.stringify(all.body)).not.toContain(excluded);
      const byProperty = await a.get(q(`&propertyId=${p2.propertyId}`)).expect(200);
      expect(byProperty.body.data.map((r: { reminderId: string }) => r.reminderId)).toEqual([tie1, inside]);
      // Page by page.
      const seen: string[] = [];
      let cursor = '';
      for (;;) {
        const page = await a.get(q(`&limit=1${cursor}`)).expect(200);
        seen.push(...page.body.data.map((r: { reminderId: string }) => r.reminderId));
        if (!page.body.hasMore) break;
        cursor = `&cursor=${encodeURIComponent(page.body.nextCursor)}`;
      }
      expect(seen).toEqual([atFrom, tie1, tie2, inside]);
      const first = await a.get(q('&limit=1')).expect(200);
      expectProblem(
        await a.get(q(`&propertyId=${p1.propertyId}&cursor=${encodeURIComponent(first.body.nextCursor)}`)),
        400,
        'invalidCursor',
      );
      expectProblem(await a.get(q('&cursor=nope')), 400, 'invalidCursor');
    });

    it('validates its query', async () => {
      const from = encodeURIComponent(at(0));
      const to = encodeURIComponent(at(1));
      expect(pointersOf(await s.api.get(`/v1/reminders?dateTo=${to}`).expect(400))).toEqual(['#/dateFrom']);
      expect(pointersOf(await s.api.get(`/v1/reminders?dateFrom=${from}`).expect(400))).toEqual(['#/dateTo']);
      expect(pointersOf(await s.api.get(`/v1/reminders?dateFrom=2030-01-01&dateTo=${to}`).expect(400))).toEqual(['#/dateFrom']);
      expect(pointersOf(await s.api.get(`/v1/reminders?dateFrom=${to}&dateTo=${from}`).expect(400))).toEqual(['#/dateTo']);
      await s.api.get(`/v1/reminders?dateFrom=${from}&dateTo=${to}&limit=101`).expect(400);
      expect((await s.api.get(`/v1/reminders?dateFrom=${from}&dateTo=${to}&status=1`).expect(400)).body.code).toBe('objectStrict');
    });
  });

  describe('GET and DELETE /v1/reminders/{reminderId}', () => {
    it('reads and deletes (204); unknown, malformed and another account’s ids are 404', async () => {
      const created = (await create().expect(201)).body;
      expectProblem(await s.otherApi.get(`/v1/reminders/${created.reminderId}`), 404, 'notFound');
      expectProblem(await s.otherApi.delete(`/v1/reminders/${created.reminderId}`), 404, 'notFound');
      const listed = await s.otherApi
        .get(`/v1/reminders?dateFrom=${encodeURIComponent(at(-3650))}&dateTo=${encodeURIComponent(at(3650))}`)
        .expect(200);
      expect(listed.body.data).toEqual([]);
      expectProblem(await s.api.get('/v1/reminders/rem_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'notFound');
      expectProblem(await s.api.get('/v1/reminders/nope'), 404, 'notFound');
      const res = await s.api.delete(`/v1/reminders/${created.reminderId}`).expect(204);
      expect(res.text).toBe('');
      await s.api.get(`/v1/reminders/${created.reminderId}`).expect(404);
      await s.api.delete(`/v1/reminders/${created.reminderId}`).expect(404);
      await s.api.delete(`/v1/reminders/${created.reminderId}x`).send({ a: 1 }).expect(400);
    });
  });

  it('reminder.create and reminder.delete carry the reminder as the API returned it', async () => {
    const a = clientFor(s.t, await createAccount(s.t));
    const { propertyId } = await createProperty(a);
    const created = (await a.post('/v1/reminders').send(valid({ propertyId })).expect(201)).body;
    await a.delete(`/v1/reminders/${created.reminderId}`).expect(204);
    await a
      .post('/v1/reminders')
      .send(valid({ propertyId, title: '' }))
      .expect(400);
    const events = (await feedEvents(a, { until: (e) => e.some((x) => x.eventName === 'reminder.delete') })).filter((e) =>
      e.eventName.startsWith('reminder.'),
    );
    expect(events.map((e) => e.eventName)).toEqual(['reminder.create', 'reminder.delete']);
    expect(JSON.stringify(events[0].results)).toBe(JSON.stringify([created]));
    expect(events[1].results).toEqual([created]);
  });
});
