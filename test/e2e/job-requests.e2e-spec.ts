import { ApiClient, clientFor, createAccount, startApp, suite, TestApp } from '../support/app';
import { createBooking } from '../support/bookings';
import { feedEvents } from '../support/events';
import { createChecklist, createJob, START, validJob } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

describe('job requests: create and read', () => {
  const s = suite({ property: { name: 'Harbour loft', location: { latitude: 43.2965, longitude: 5.3698 }, countryCode: 'FR' } });

  describe('POST /v1/jobRequests', () => {
    it('creates a job in status 1 and returns the snapshot inline, exactly the read shape', async () => {
      const checklist = await createChecklist(s.api, s.property.propertyId, { groups: 2, tasksPerGroup: 3, verified: 1 });
      const res = await s.api
        .post('/v1/jobRequests')
        .send(
          validJob(s.property.propertyId, {
            checklists: [{ checklistId: checklist.checklistId }],
            offeredPrice: 80.5,
            offeredPriceCurrency: 'EUR',
            message: 'Please bring towels',
            receiveUpdates: true,
          }),
        )
        .expect(201);
      const job = res.body;
      expect(job.jobRequestId).toMatch(/^job_[0-9A-Z]{26}$/);
      expect(Object.keys(job)).toEqual([
        'jobRequestId',
        'status',
        'jobType',
        'title',
        'note',
        'createdTime',
        'scheduledStartTime',
        'scheduledEndTime',
        'actualStartTime',
        'actualEndTime',
        'hostId',
        'propertyId',
        'propertyTitle',
        'address',
        'location',
        'checklists',
        'cleanerId',
        'cleanerEmail',
        'cleanerName',
        'offeredPrice',
        'offeredPriceCurrency',
        'verification',
      ]);
      expect(job).toEqual({
        jobRequestId: job.jobRequestId,
        status: 1,
        jobType: 'fixed',
        title: 'Harbour loft',
        note: 'Please bring towels',
        createdTime: expect.any(String),
        scheduledStartTime: START,
        scheduledEndTime: '2030-06-01T12:00:00.000Z',
        actualStartTime: null,
        actualEndTime: null,
        hostId: expect.stringMatching(/^acct_/),
        propertyId: s.property.propertyId,
        propertyTitle: 'Harbour loft',
        address: { street: null, apt: null, city: null, state: null, zip: null, country: 'FR', AddressArray: [s.property.address] },
        location: [5.3698, 43.2965],
        checklists: [checklist.checklistId],
        cleanerId: null,
        cleanerEmail: null,
        cleanerName: null,
        offeredPrice: 80.5,
        offeredPriceCurrency: 'EUR',
        verification: {
          completedTaskCount: 0,
          totalTaskCount: 7,
          verificationPictureCount: 0,
          requiredVerificationPictureCount: 1,
          problemCount: 0,
        },
      });
      expect(new Date(job.createdTime).toISOString()).toBe(job.createdTime);
      expect(JSON.stringify(job)).not.toMatch(/"(_id|jobId|id)"/);
    });

    it('takes the scheduled end from endTime, else start plus hours and minutes, else none', async () => {
      const end = (time: Record<string, unknown>) => createJob(s.api, s.property.propertyId, { time }).then((job) => job.scheduledEndTime);
      expect(await end({ type: 'fixed', startTime: START, endTime: '2030-06-01T13:30:00Z', durationInHours: 9 })).toBe(
        '2030-06-01T13:30:00.000Z',
      );
      expect(await end({ type: 'flexible', startTime: START, durationInHours: 1, durationInMinutes: 15 })).toBe('2030-06-01T11:15:00.000Z');
      expect(await end({ type: 'fixed', startTime: '2030-06-01T12:00:00+02:00', durationInMinutes: 45 })).toBe('2030-06-01T10:45:00.000Z');
      expect(await end({ type: 'fixed', startTime: START })).toBeNull();
    });

    it('accepts sourcePropertyId instead of propertyId', async () => {
      const job = await createJob(s.api, s.property.propertyId, { property: { sourcePropertyId: s.property.sourceId } });
      expect(job.propertyId).toBe(s.property.propertyId);
    });

    it('writes jobRequest.created with the snapshot, in the same transaction', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const events = await feedEvents(s.api, { until: (all) => all.some((e) => e.results[0]?.jobRequestId === job.jobRequestId) });
      const created = events.filter((e) => e.eventName === 'jobRequest.created' && e.results[0].jobRequestId === job.jobRequestId);
      expect(created).toHaveLength(1);
      expect(created[0].results).toEqual([job]);
    });
  });

  describe('POST /v1/jobRequests: validation', () => {
    const create = (overrides: Record<string, unknown>) => s.api.post('/v1/jobRequests').send(validJob(s.property.propertyId, overrides));
    const expect400 = async (overrides: Record<string, unknown>, pointers: string[], code = 'validationFailed') => {
      const res = await create(overrides);
      expectProblem(res, 400, code, '/v1/jobRequests');
      expect(pointersOf(res)).toEqual(pointers);
    };

    it('requires serviceProviders: a non-empty list of emails, each once', async () => {
      await expect400({ serviceProviders: undefined }, ['#/serviceProviders']);
      await expect400({ serviceProviders: [] }, ['#/serviceProviders']);
      await expect400({ serviceProviders: [{ email: 'not-an-email' }] }, ['#/serviceProviders/0/email']);
      await expect400({ serviceProviders: [{}] }, ['#/serviceProviders/0/email']);
      await expect400({ serviceProviders: [{ email: 'a@x.example' }, { email: 'A@X.example' }] }, ['#/serviceProviders/1/email']);
      await expect400({ serviceProviders: [{ email: 'a@x.example', name: 'Ann' }] }, ['#/serviceProviders/0/name'], 'objectStrict');
    });

    it('requires the time object: type fixed or flexible, startTime, durations 1-999, endTime after startTime', async () => {
      await expect400({ time: undefined }, ['#/time']);
      await expect400({ time: { type: 'fixed' } }, ['#/time/startTime']);
      await expect400({ time: { startTime: START } }, ['#/time/type']);
      await expect400({ time: { type: 'sometimes', startTime: START } }, ['#/time/type']);
      await expect400({ time: { type: 'fixed', startTime: '2030-06-01' } }, ['#/time/startTime']);
      await expect400({ time: { type: 'fixed', startTime: '2030-02-30T10:00:00Z' } }, ['#/time/startTime']);
      await expect400({ time: { type: 'fixed', startTime: START, durationInHours: 0 } }, ['#/time/durationInHours']);
      await expect400({ time: { type: 'fixed', startTime: START, durationInMinutes: 0 } }, ['#/time/durationInMinutes']);
      await expect400({ time: { type: 'fixed', startTime: START, durationInHours: 1000 } }, ['#/time/durationInHours']);
      await expect400({ time: { type: 'fixed', startTime: START, durationInMinutes: 1.5 } }, ['#/time/durationInMinutes']);
      await expect400({ time: { type: 'fixed', startTime: START, endTime: START } }, ['#/time/endTime']);
      await expect400({ time: { type: 'fixed', startTime: START, endTime: '2030-06-01T09:00:00Z' } }, ['#/time/endTime']);
      await expect400({ time: { type: 'fixed', startTime: START, timeZone: 'UTC' } }, ['#/time/timeZone'], 'objectStrict');
      const ok = await create({ time: { type: 'flexible', startTime: START, durationInHours: 999, durationInMinutes: 1 } }).expect(201);
      expect(ok.body.scheduledEndTime).toBe('2030-07-13T01:01:00.000Z');
    });

    it('names the property by exactly one identifier, each at least 3 characters', async () => {
      await expect400({ property: undefined }, ['#/property']);
      await expect400({ property: {} }, ['#/propertyId', '#/sourcePropertyId']);
      await expect400({ property: { propertyId: s.property.propertyId, sourcePropertyId: s.property.sourceId } }, [
        '#/propertyId',
        '#/sourcePropertyId',
      ]);
      await expect400({ property: { propertyId: 'pr' } }, ['#/property/propertyId']);
      await expect400({ property: { sourcePropertyId: 'ab' } }, ['#/property/sourcePropertyId']);
      await expect400({ property: { propertyId: s.property.propertyId, name: 'x' } }, ['#/property/name'], 'objectStrict');
    });

    it('404s an unknown property or another account’s', async () => {
      const other = await createProperty(s.otherApi);
      expectProblem(await create({ property: { propertyId: 'prop_01ARZ3NDEKTSV4RRFFQ69G5FAV' } }), 404, 'notFound');
      expectProblem(await create({ property: { sourcePropertyId: 'no-such-source' } }), 404, 'notFound');
      expectProblem(await create({ property: { propertyId: other.propertyId } }), 404, 'notFound');
      expectProblem(await create({ property: { sourcePropertyId: other.sourceId } }), 404, 'notFound');
    });

    it('limits job otherAttributes to label 60 and value 100 characters', async () => {
      const attr = (label: string, value: unknown) => ({
        property: { propertyId: s.property.propertyId, otherAttributes: [{ label, value }] },
      });
      await create(attr('l'.repeat(60), 'v'.repeat(100))).expect(201);
      await create(attr('l'.repeat(60), ['v'.repeat(100), 'w'])).expect(201);
      await expect400(attr('l'.repeat(61), 'v'), ['#/property/otherAttributes/0/label']);
      await expect400(attr('l', 'v'.repeat(101)), ['#/property/otherAttributes/0/value']);
      await expect400(attr('l', ['v', 'v'.repeat(101)]), ['#/property/otherAttributes/0/value']);
      await expect400(
        { property: { propertyId: s.property.propertyId, otherAttributes: [{ label: 'l', value: 'v', group: 'g'.repeat(101) }] } },
        ['#/property/otherAttributes/0/group'],
      );
    });

    it('checks offeredPrice, offeredPriceCurrency, message, sourceBookingId and receiveUpdates', async () => {
      await create({ offeredPrice: 0 }).expect(201);
      await expect400({ offeredPrice: -0.01 }, ['#/offeredPrice']);
      await expect400({ offeredPrice: '10' }, ['#/offeredPrice']);
      await expect400({ offeredPriceCurrency: 'eur' }, ['#/offeredPriceCurrency']);
      await create({ message: 'abc' }).expect(201);
      await create({ message: 'm'.repeat(1500) }).expect(201);
      await expect400({ message: 'ab' }, ['#/message']);
      await expect400({ message: 'm'.repeat(1501) }, ['#/message']);
      await expect400({ sourceBookingId: '' }, ['#/sourceBookingId']);
      await expect400({ receiveUpdates: 'yes' }, ['#/receiveUpdates']);
      await expect400(
        { colour: 'red', property: { propertyId: s.property.propertyId, colour: 'blue' } },
        ['#/colour', '#/property/colour'],
        'objectStrict',
      );
    });

    it('links a booking of the account by sourceBookingId: partnerBookingId, only then, in the spec’s place', async () => {
      const booking = await createBooking(s.api, s.property.propertyId);
      const linked = await create({ sourceBookingId: booking.sourceBookingId }).expect(201);
      expect(linked.body.partnerBookingId).toBe(booking.bookingId);
      const keys = Object.keys(linked.body);
      expect(keys.slice(keys.indexOf('cleanerName'), keys.indexOf('offeredPrice') + 1)).toEqual([
        'cleanerName',
        'partnerBookingId',
        'offeredPrice',
      ]);
      expect((await s.api.get(`/v1/jobRequests/${linked.body.jobRequestId}`).expect(200)).body).toEqual(linked.body);
      expect((await create({}).expect(201)).body).not.toHaveProperty('partnerBookingId');
    });

    it('refuses a sourceBookingId the account has no booking for (404), or a booking at another property (400)', async () => {
      const unknown = await create({ sourceBookingId: 'no-such-booking' });
      expectProblem(unknown, 404, 'notFound');
      expect(unknown.body.detail).toContain('no-such-booking');
      const foreign = await createBooking(s.otherApi, (await createProperty(s.otherApi)).propertyId);
      expectProblem(await create({ sourceBookingId: foreign.sourceBookingId }), 404, 'notFound');
      const elsewhere = await createBooking(s.api, (await createProperty(s.api)).propertyId);
      const res = await create({ sourceBookingId: elsewhere.sourceBookingId });
      expectProblem(res, 400, 'validationFailed');
      expect(pointersOf(res)).toEqual(['#/sourceBookingId']);
    });
  });

  describe('POST /v1/jobRequests: checklists', () => {
    it('copies checklists of the account, of the job’s property, not disabled', async () => {
      const mine = await createChecklist(s.api, s.property.propertyId);
      const otherPropertyOfMine = await createProperty(s.api);
      const elsewhere = await createChecklist(s.api, otherPropertyOfMine.propertyId);
      const disabled = await createChecklist(s.api, s.property.propertyId);
      await s.api.post(`/v1/checklists/${disabled.checklistId}/disable`).expect(200);
      const foreign = await createChecklist(s.otherApi, (await createProperty(s.otherApi)).propertyId);
      const withChecklists = (...ids: string[]) =>
        s.api.post('/v1/jobRequests').send(validJob(s.property.propertyId, { checklists: ids.map((checklistId) => ({ checklistId })) }));

      const unknown = await withChecklists(mine.checklistId, 'chk_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expectProblem(unknown, 400, 'validationFailed');
      expect(pointersOf(unknown)).toEqual(['#/checklists/1/checklistId']);
      expect(pointersOf(await withChecklists(foreign.checklistId).expect(400))).toEqual(['#/checklists/0/checklistId']);
      expect(pointersOf(await withChecklists(mine.checklistId, elsewhere.checklistId).expect(400))).toEqual(['#/checklists/1/checklistId']);
      expect(pointersOf(await withChecklists(mine.checklistId, mine.checklistId).expect(400))).toEqual(['#/checklists/1/checklistId']);
      const refused = await withChecklists(disabled.checklistId);
      expectProblem(refused, 409, 'invalidState');
      expect(refused.body.detail).toContain(disabled.checklistId);
      await withChecklists().expect(201);
      expect((await withChecklists(mine.checklistId).expect(201)).body.checklists).toEqual([mine.checklistId]);
    });

    it('keeps its copies: editing or disabling the checklist later never changes the job', async () => {
      const checklist = await createChecklist(s.api, s.property.propertyId, { groups: 2, tasksPerGroup: 2, verified: 2 });
      const job = await createJob(s.api, s.property.propertyId, { checklists: [{ checklistId: checklist.checklistId }] });
      expect(job.verification).toMatchObject({ totalTaskCount: 6, requiredVerificationPictureCount: 2 });
      await s.api
        .patch(`/v1/checklists/${checklist.checklistId}`)
        .send({ taskGroups: [{ title: 'Only', tasks: [{ label: 'One task' }] }] })
        .expect(200);
      await s.api.post(`/v1/checklists/${checklist.checklistId}/disable`).expect(200);
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(job);
    });

    it('three checklists of 20 tasks: one job, 60 tasks plus one per photo step', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push((await createChecklist(s.api, s.property.propertyId, { groups: 2, tasksPerGroup: 10, verified: 1 })).checklistId);
      const job = await createJob(s.api, s.property.propertyId, { checklists: ids.map((checklistId) => ({ checklistId })) });
      expect(job.checklists).toEqual(ids);
      expect(job.verification).toMatchObject({ totalTaskCount: 63, requiredVerificationPictureCount: 3, completedTaskCount: 0 });
    });
  });

  describe('POST /v1/jobRequests: property details', () => {
    it('updates the property’s details in the same transaction, with property.update', async () => {
      const own = await createProperty(s.api, { details: { information: 'old', parking: 'street' } });
      const job = await createJob(s.api, own.propertyId, {
        property: {
          sourcePropertyId: own.sourceId,
          information: 'Key in the box',
          wifiPassword: 'secret',
          otherAttributes: [{ label: 'Bins', value: ['Tuesday', 'Friday'], group: 'Garbage' }],
        },
      });
      const updated = (await s.api.get(`/v1/properties/${own.propertyId}`).expect(200)).body;
      expect(updated.details).toEqual({
        information: 'Key in the box',
        parking: 'street',
        wifiPassword: 'secret',
        otherAttributes: [{ label: 'Bins', value: ['Tuesday', 'Friday'], group: 'Garbage' }],
      });
      const events = await feedEvents(s.api, { until: (all) => all.some((e) => e.results[0]?.jobRequestId === job.jobRequestId) });
      const mine = events.filter((e) => e.results[0]?.propertyId === own.propertyId && e.eventName !== 'property.create');
      expect(mine.map((e) => e.eventName)).toEqual(['property.update', 'jobRequest.created']);
      expect(mine[0].results[0].details).toEqual(updated.details);
      expect(mine[0].apiRequestId).toBe(mine[1].apiRequestId);
    });

    it('a failed create leaves the property’s details as they were', async () => {
      const own = await createProperty(s.api, { details: { information: 'old' } });
      await s.api
        .post('/v1/jobRequests')
        .send(
          validJob(own.propertyId, {
            property: { propertyId: own.propertyId, information: 'new' },
            checklists: [{ checklistId: 'chk_01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
          }),
        )
        .expect(400);
      expect((await s.api.get(`/v1/properties/${own.propertyId}`).expect(200)).body.details).toEqual({ information: 'old' });
    });
  });

  describe('Idempotency-Key on create', () => {
    it('replays the first response for the same key and body, without a second job or event', async () => {
      const key = `job-${Date.now()}`;
      const body = validJob(s.property.propertyId, { message: 'idempotent job' });
      const first = await s.api.post('/v1/jobRequests').set('idempotency-key', key).send(body).expect(201);
      const again = await s.api.post('/v1/jobRequests').set('idempotency-key', key).send(body).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const events = await feedEvents(s.api, { until: (all) => all.some((e) => e.clientRequestId === key) });
      expect(events.filter((e) => e.clientRequestId === key).map((e) => e.eventName)).toEqual(['jobRequest.created']);
      const other = await s.api
        .post('/v1/jobRequests')
        .set('idempotency-key', key)
        .send({ ...body, message: 'another job' });
      expectProblem(other, 422, 'idempotencyKeyReused');
    });
  });

  describe('GET /v1/jobRequests/{jobRequestId}', () => {
    it('returns the job; unknown, malformed or another account’s id is a 404', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(job);
      expectProblem(await s.otherApi.get(`/v1/jobRequests/${job.jobRequestId}`), 404, 'notFound');
      expectProblem(await s.api.get('/v1/jobRequests/job_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'notFound');
      expectProblem(await s.api.get('/v1/jobRequests/not-a-job'), 404, 'notFound');
      expectProblem(await s.api.get(`/v1/jobRequests/${job.jobRequestId}?x=1`), 400, 'objectStrict');
    });
  });

  describe('property deletion', () => {
    it('refuses with 409 conflict while the property has a job in status 1, and the job stays as it was', async () => {
      const own = await createProperty(s.api);
      const job = await createJob(s.api, own.propertyId);
      const res = await s.api.delete(`/v1/properties/${own.propertyId}`);
      expectProblem(res, 409, 'conflict');
      expect(res.body.detail).toContain('status 1, 2, 5 or 9');
      await s.api.get(`/v1/properties/${own.propertyId}`).expect(200);
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(job);
    });
  });
});

describe('job requests: list', () => {
  let t: TestApp;
  let api: ApiClient;
  let jobs: Array<{ jobRequestId: string; scheduledStartTime: string }>;
  const list = (query: string) => api.get(`/v1/jobRequests?${query}`);
  const WINDOW = 'dateFrom=2031-01-01T00:00:00Z&dateTo=2031-01-31T23:59:59Z';

  beforeAll(async () => {
    t = await startApp();
    api = clientFor(t, await createAccount(t));
    const otherApi = clientFor(t, await createAccount(t));
    const property = await createProperty(api);
    const at = (day: string) => ({ time: { type: 'fixed', startTime: `2031-01-${day}T09:00:00Z` } });
    jobs = [];
    // Out of creation order on purpose; 10 and 10 tie on the start (then id order decides).
    for (const day of ['20', '10', '05', '10', '31']) jobs.push(await createJob(api, property.propertyId, at(day)));
    await createJob(api, property.propertyId, { time: { type: 'fixed', startTime: '2030-12-31T23:59:59Z' } });
    await createJob(api, property.propertyId, { time: { type: 'fixed', startTime: '2031-02-01T00:00:00Z' } });
    await createJob(otherApi, (await createProperty(otherApi)).propertyId, at('15'));
  });
  afterAll(() => t.close());

  const expectedOrder = () =>
    [...jobs]
      .sort((a, b) => a.scheduledStartTime.localeCompare(b.scheduledStartTime) || a.jobRequestId.localeCompare(b.jobRequestId))
      .map((job) => job.jobRequestId);

  it('lists the account’s jobs starting inside the window, by scheduledStartTime then id', async () => {
    const res = await list(WINDOW).expect(200);
    expect(res.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
    expect(res.body.data.map((job: { jobRequestId: string }) => job.jobRequestId)).toEqual(expectedOrder());
    expect(res.body.data[0]).toEqual((await api.get(`/v1/jobRequests/${res.body.data[0].jobRequestId}`)).body);
  });

  it('includes both ends of the window', async () => {
    const res = await list('dateFrom=2031-01-05T09:00:00Z&dateTo=2031-01-10T09:00:00Z').expect(200);
    expect(res.body.data).toHaveLength(3);
  });

  it('pages with a keyset cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await list(`${WINDOW}&limit=2${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      seen.push(...res.body.data.map((job: { jobRequestId: string }) => job.jobRequestId));
      expect(res.body.hasMore).toBe(seen.length < 5);
      if (!res.body.hasMore) {
        expect(res.body.nextCursor).toBeNull();
        break;
      }
      cursor = res.body.nextCursor;
    }
    expect(seen).toEqual(expectedOrder());
  });

  it('filters by status: 1 finds jobs still needing a cleaner', async () => {
    expect((await list(`${WINDOW}&status=1`).expect(200)).body.data).toHaveLength(5);
    expect((await list(`${WINDOW}&status=2`).expect(200)).body.data).toEqual([]);
    for (const status of [3, 4, 5, 7, 8, 9]) await list(`${WINDOW}&status=${status}`).expect(200);
  });

  it('refuses any other status', async () => {
    for (const status of ['0', '6', '10', '-1', 'x', '1.0', '0x1', '']) {
      const res = await list(`${WINDOW}&status=${status}`);
      expectProblem(res, 400, 'validationFailed');
      expect(pointersOf(res)).toEqual(['#/status']);
    }
  });

  it('requires valid dateFrom and dateTo', async () => {
    expect(pointersOf(await list('').expect(400))).toEqual(['#/dateFrom', '#/dateTo']);
    expect(pointersOf(await list('dateFrom=2031-01-01T00:00:00Z').expect(400))).toEqual(['#/dateTo']);
    expect(pointersOf(await list('dateFrom=yesterday&dateTo=2031-01-01T00:00:00Z').expect(400))).toEqual(['#/dateFrom']);
    expect(pointersOf(await list('dateFrom=2031-01-02T00:00:00Z&dateTo=2031-01-01T00:00:00Z').expect(400))).toEqual(['#/dateTo']);
    expectProblem(await list(`${WINDOW}&propertyId=x`), 400, 'objectStrict');
  });

  it('refuses a malformed, tampered or foreign cursor', async () => {
    const first = await list(`${WINDOW}&limit=1`).expect(200);
    expectProblem(await list(`${WINDOW}&cursor=garbage`), 400, 'invalidCursor');
    expectProblem(await list(`${WINDOW}&cursor=x${first.body.nextCursor}`), 400, 'invalidCursor');
    expectProblem(
      await list(`dateFrom=2031-01-01T00:00:00Z&dateTo=2031-12-31T00:00:00Z&cursor=${first.body.nextCursor}`),
      400,
      'invalidCursor',
    );
    expectProblem(await list(`${WINDOW}&status=1&cursor=${first.body.nextCursor}`), 400, 'invalidCursor');
    expectProblem(await api.get(`/v1/properties?cursor=${first.body.nextCursor}`), 400, 'invalidCursor');
  });
});
