import { suite } from '../support/app';
import { feedEvents } from '../support/events';
import { ANN, BOB, createChecklist, createJob, jobInStatus, provider, START } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

const STATUSES = [1, 2, 3, 4, 5, 7, 8, 9];
const CLOSED = [3, 4, 7, 8];

describe('job requests: host changes', () => {
  const s = suite({ env: { TEST_HELPERS_ENABLED: 'true' }, property: true });

  const inStatus = (status: number, overrides: Record<string, unknown> = {}) =>
    jobInStatus(s.api, s.property.propertyId, status, overrides);
  const patch = (jobRequestId: string, body: Record<string, unknown>) => s.api.patch(`/v1/jobRequests/${jobRequestId}`).send(body);
  /** The job's events once the feed shows `count` of them named `until` (the feed shows an event only once older transactions end). */
  const eventsOf = async (jobRequestId: string, until: string, count = 1) => {
    const events = await feedEvents(s.api, {
      until: (all) => all.filter((e) => e.eventName === until && e.results[0]?.jobRequestId === jobRequestId).length >= count,
    });
    return events.filter((e) => e.results[0]?.jobRequestId === jobRequestId);
  };

  describe('PATCH /v1/jobRequests/{jobRequestId}', () => {
    it('changes the fields of 4.7 and returns the rebuilt snapshot, with jobRequest.updated', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const res = await patch(job.jobRequestId, {
        offeredPrice: 95,
        offeredPriceCurrency: 'USD',
        message: 'New instructions',
        receiveUpdates: false,
        serviceProviders: [{ email: 'carol@cleaners.example' }],
        time: { durationInMinutes: 30 },
      }).expect(200);
      expect(res.body).toEqual({
        ...job,
        offeredPrice: 95,
        offeredPriceCurrency: 'USD',
        note: 'New instructions',
        scheduledEndTime: '2030-06-01T12:30:00.000Z',
      });
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body).toEqual(res.body);
      const events = await eventsOf(job.jobRequestId, 'jobRequest.updated');
      expect(events.map((e) => e.eventName)).toEqual(['jobRequest.created', 'jobRequest.updated']);
      expect(events[1].results).toEqual([res.body]);
      // The new list replaced the old one: Ann is no longer invited.
      expectProblem(await provider(s.api, job.jobRequestId).accept(ANN), 400, 'validationFailed');
    });

    it('takes every time field as optional; null clears endTime and durations; endTime stays after startTime', async () => {
      const job = await createJob(s.api, s.property.propertyId, {
        time: { type: 'fixed', startTime: START, endTime: '2030-06-01T15:00:00Z' },
      });
      expect((await patch(job.jobRequestId, { time: { type: 'flexible' } }).expect(200)).body).toMatchObject({
        jobType: 'flexible',
        scheduledEndTime: '2030-06-01T15:00:00.000Z',
      });
      expect((await patch(job.jobRequestId, { time: { startTime: '2030-06-01T08:00:00Z' } }).expect(200)).body.scheduledStartTime).toBe(
        '2030-06-01T08:00:00.000Z',
      );
      expect((await patch(job.jobRequestId, { time: { endTime: null, durationInHours: 1 } }).expect(200)).body.scheduledEndTime).toBe(
        '2030-06-01T09:00:00.000Z',
      );
      expect((await patch(job.jobRequestId, { time: { durationInHours: null } }).expect(200)).body.scheduledEndTime).toBeNull();
      expect(pointersOf(await patch(job.jobRequestId, { time: { endTime: '2030-06-01T07:00:00Z' } }).expect(400))).toEqual([
        '#/time/endTime',
      ]);
      expect(pointersOf(await patch(job.jobRequestId, { time: { startTime: null } }).expect(400))).toEqual(['#/time/startTime']);
      expect(pointersOf(await patch(job.jobRequestId, { time: { type: null } }).expect(400))).toEqual(['#/time/type']);
      expect(pointersOf(await patch(job.jobRequestId, { time: { durationInMinutes: 0 } }).expect(400))).toEqual([
        '#/time/durationInMinutes',
      ]);
    });

    it('takes property details only (no ids) and writes them to the property', async () => {
      const own = await createProperty(s.api, { details: { access: 'Code 1234' } });
      const job = await createJob(s.api, own.propertyId);
      const res = await patch(job.jobRequestId, {
        property: { access: 'Code 9999', otherAttributes: [{ label: 'Pets', value: 'Cat' }] },
      }).expect(200);
      expect(res.body).toEqual(job); // a property change, not a change of the job
      expect((await s.api.get(`/v1/properties/${own.propertyId}`)).body.details).toEqual({
        access: 'Code 9999',
        otherAttributes: [{ label: 'Pets', value: 'Cat' }],
      });
      expectProblem(await patch(job.jobRequestId, { property: { propertyId: own.propertyId } }), 400, 'objectStrict');
      expectProblem(await patch(job.jobRequestId, { property: { sourcePropertyId: own.sourceId } }), 400, 'objectStrict');
      expect(
        pointersOf(await patch(job.jobRequestId, { property: { otherAttributes: [{ label: 'l'.repeat(61), value: 'v' }] } }).expect(400)),
      ).toEqual(['#/property/otherAttributes/0/label']);
    });

    it('validates like create: providers, checklists, price, message', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      expect(pointersOf(await patch(job.jobRequestId, { serviceProviders: [] }).expect(400))).toEqual(['#/serviceProviders']);
      expect(pointersOf(await patch(job.jobRequestId, { serviceProviders: null }).expect(400))).toEqual(['#/serviceProviders']);
      expect(pointersOf(await patch(job.jobRequestId, { offeredPrice: -1 }).expect(400))).toEqual(['#/offeredPrice']);
      expect(pointersOf(await patch(job.jobRequestId, { message: 'hi' }).expect(400))).toEqual(['#/message']);
      expect(
        pointersOf(await patch(job.jobRequestId, { checklists: [{ checklistId: 'chk_01ARZ3NDEKTSV4RRFFQ69G5FAV' }] }).expect(400)),
      ).toEqual(['#/checklists/0/checklistId']);
      expectProblem(await patch(job.jobRequestId, { sourceBookingId: 'x' }), 400, 'objectStrict');
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body).toEqual(job);
    });

    it('checklists: those already on the job keep their copy, new ones are copied now, left-out ones go', async () => {
      const a = await createChecklist(s.api, s.property.propertyId, { tasksPerGroup: 2 });
      const b = await createChecklist(s.api, s.property.propertyId, { tasksPerGroup: 3 });
      const job = await createJob(s.api, s.property.propertyId, { checklists: [{ checklistId: a.checklistId }] });
      // a changes and is disabled after the job copied it: the job keeps its copy, even when a is listed again.
      await s.api
        .patch(`/v1/checklists/${a.checklistId}`)
        .send({ taskGroups: [{ title: 'x', tasks: [{ label: 'one' }, { label: 'two' }, { label: 'three' }, { label: 'four' }] }] })
        .expect(200);
      await s.api.post(`/v1/checklists/${a.checklistId}/disable`).expect(200);
      const both = (
        await patch(job.jobRequestId, { checklists: [{ checklistId: b.checklistId }, { checklistId: a.checklistId }] }).expect(200)
      ).body;
      expect(both.checklists).toEqual([b.checklistId, a.checklistId]);
      expect(both.verification.totalTaskCount).toBe(5);
      const onlyB = (await patch(job.jobRequestId, { checklists: [{ checklistId: b.checklistId }] }).expect(200)).body;
      expect(onlyB).toMatchObject({ checklists: [b.checklistId], verification: { totalTaskCount: 3 } });
      // a is disabled now: attaching it afresh is refused.
      expectProblem(await patch(job.jobRequestId, { checklists: [{ checklistId: a.checklistId }] }), 409, 'invalidState');
      expect((await patch(job.jobRequestId, { checklists: [] }).expect(200)).body.checklists).toEqual([]);
    });

    it('a change to an accepted job moves it to 9, the cleaner still assigned, with changesPending', async () => {
      const job = await inStatus(2);
      const res = (await patch(job.jobRequestId, { offeredPrice: 70 }).expect(200)).body;
      expect(res).toMatchObject({ status: 9, cleanerEmail: ANN, cleanerId: job.cleanerId, cleanerName: job.cleanerName, offeredPrice: 70 });
      const events = await eventsOf(job.jobRequestId, 'jobRequest.changesPending');
      expect(events.slice(-2).map((e) => [e.eventName, e.results[0].status])).toEqual([
        ['jobRequest.updated', 9],
        ['jobRequest.changesPending', 9],
      ]);
      expect((await patch(job.jobRequestId, { offeredPrice: 75 }).expect(200)).body.status).toBe(9);
    });

    it('values equal to the stored ones, or an empty body, change nothing: no event, no move to 9', async () => {
      const job = await inStatus(2, { offeredPrice: 10, message: 'Same message' });
      const same = await patch(job.jobRequestId, {
        offeredPrice: 10,
        message: 'Same message',
        serviceProviders: [{ email: 'ANN@cleaners.example' }, { email: BOB }],
        time: { type: 'fixed', startTime: '2030-06-01T12:00:00+02:00', durationInHours: 2 },
        checklists: [],
      }).expect(200);
      expect(same.body).toEqual(job);
      expect((await patch(job.jobRequestId, {}).expect(200)).body).toEqual(job);
      expect((await patch(job.jobRequestId, { receiveUpdates: true }).expect(200)).body).toEqual(job);
      const events = await eventsOf(job.jobRequestId, 'jobRequest.accepted');
      expect(events.map((e) => e.eventName)).toEqual(['jobRequest.created', 'jobRequest.accepted']);
    });

    it.each(STATUSES)('from status %i', async (status) => {
      const job = await inStatus(status);
      const res = await patch(job.jobRequestId, { offeredPrice: 123 });
      if (CLOSED.includes(status)) {
        const problem = expectProblem(res, 409, 'invalidState');
        expect(problem.detail).toContain(`status ${status} (`);
        expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body).toEqual(job);
      } else {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ offeredPrice: 123, status: status === 2 ? 9 : status });
      }
    });
  });

  describe('POST /v1/jobRequests/{jobRequestId}/oneOffTasks', () => {
    const add = (jobRequestId: string, tasks: unknown) => s.api.post(`/v1/jobRequests/${jobRequestId}/oneOffTasks`).send({ tasks });

    it('adds tasks, and updates the one with the same title; the counts follow', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const first = (
        await add(job.jobRequestId, [
          { title: 'Water plants', note: 'Balcony' },
          { title: 'Feed cat', note: 'Wet food' },
        ]).expect(200)
      ).body;
      expect(first.verification.totalTaskCount).toBe(2);
      const second = (
        await add(job.jobRequestId, [
          { title: 'Water plants', note: 'Balcony and kitchen', sourcePictureUrl: 'https://images.example.com/p.png' },
        ]).expect(200)
      ).body;
      expect(second.verification.totalTaskCount).toBe(2);
      const third = (await add(job.jobRequestId, [{ title: 'water plants', note: 'case differs: a new task' }]).expect(200)).body;
      expect(third.verification.totalTaskCount).toBe(3);
      const events = await eventsOf(job.jobRequestId, 'jobRequest.updated', 3);
      expect(events.filter((e) => e.eventName === 'jobRequest.updated')).toHaveLength(3);
      // The same task again changes nothing: no event.
      expect((await add(job.jobRequestId, [{ title: 'Feed cat', note: 'Wet food' }]).expect(200)).body).toEqual(third);
    });

    it('one-off tasks can be completed by their taskId (reported in jobRequest.completed)', async () => {
      const job = await inStatus(5);
      await add(job.jobRequestId, [{ title: 'Water plants', note: 'Balcony' }]).expect(200);
      const events = await eventsOf(job.jobRequestId, 'jobRequest.updated');
      expect(events.at(-1)!.results[0].status).toBe(5);
      // The task id is only visible in the completion report: complete with none, read it from there.
      await provider(s.api, job.jobRequestId).complete().expect(200);
      const completed = (await eventsOf(job.jobRequestId, 'jobRequest.completed')).at(-1)!;
      expect(completed.results[0].tasks).toEqual([
        { taskId: expect.stringMatching(/^task_/), checklistId: null, label: 'Water plants', sourceTaskId: null, completed: false },
      ]);
    });

    it('validates: 1-100 tasks, title and note required, titles once per request, http(s) picture URL', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      expect(pointersOf(await add(job.jobRequestId, []).expect(400))).toEqual(['#/tasks']);
      expect(pointersOf(await s.api.post(`/v1/jobRequests/${job.jobRequestId}/oneOffTasks`).send({}).expect(400))).toEqual(['#/tasks']);
      expect(pointersOf(await add(job.jobRequestId, [{ title: 'A' }]).expect(400))).toEqual(['#/tasks/0/note']);
      expect(pointersOf(await add(job.jobRequestId, [{ note: 'n' }]).expect(400))).toEqual(['#/tasks/0/title']);
      expect(
        pointersOf(
          await add(job.jobRequestId, [
            { title: 'A', note: 'n' },
            { title: 'A', note: 'm' },
          ]).expect(400),
        ),
      ).toEqual(['#/tasks/1/title']);
      expect(
        pointersOf(await add(job.jobRequestId, [{ title: 'A', note: 'n', sourcePictureUrl: 'ftp://x.example/p.png' }]).expect(400)),
      ).toEqual(['#/tasks/0/sourcePictureUrl']);
      expectProblem(await add(job.jobRequestId, [{ title: 'A', note: 'n', taskId: 'x' }]), 400, 'objectStrict');
      const many = Array.from({ length: 100 }, (_, i) => ({ title: `Task ${i}`, note: 'n' }));
      await add(job.jobRequestId, many).expect(200);
      expect(pointersOf(await add(job.jobRequestId, [{ title: 'One more', note: 'n' }]).expect(400))).toEqual(['#/tasks']);
    });

    it.each(STATUSES)('from status %i', async (status) => {
      const job = await inStatus(status);
      const res = await add(job.jobRequestId, [{ title: 'Extra', note: 'n' }]);
      if (CLOSED.includes(status)) expectProblem(res, 409, 'invalidState');
      else expect(res.body).toMatchObject({ status: status === 2 ? 9 : status, verification: { totalTaskCount: 1 } });
    });
  });

  describe('POST /v1/jobRequests/{jobRequestId}/cancel', () => {
    it.each(STATUSES)('from status %i', async (status) => {
      const job = await inStatus(status);
      const res = await s.api.post(`/v1/jobRequests/${job.jobRequestId}/cancel`);
      if ([1, 2, 9].includes(status)) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ ...job, status: 3 });
        const events = await eventsOf(job.jobRequestId, 'jobRequest.canceled');
        expect(events.at(-1)!.results).toEqual([res.body]);
      } else {
        const problem = expectProblem(res, 409, 'invalidState');
        expect(problem.detail).toContain(`status ${status} (`);
      }
    });

    it('takes no body', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      expectProblem(await s.api.post(`/v1/jobRequests/${job.jobRequestId}/cancel`).send({ reason: 'x' }), 400, 'objectStrict');
    });
  });

  describe('PATCH /v1/jobRequests/{jobRequestId}/paymentStatus', () => {
    const pay = (jobRequestId: string, body: Record<string, unknown>) =>
      s.api.patch(`/v1/jobRequests/${jobRequestId}/paymentStatus`).send(body);

    it('sets the status with an optional description and answers the payment status; jobRequest.paymentStatusChanged', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const res = await pay(job.jobRequestId, { status: 'pending', description: 'Invoice 42' }).expect(200);
      expect(res.body).toEqual({
        jobRequestId: job.jobRequestId,
        status: 'pending',
        description: 'Invoice 42',
        updatedAt: expect.any(String),
      });
      const failed = (await pay(job.jobRequestId, { status: 'failed' }).expect(200)).body;
      expect(failed).toMatchObject({ status: 'failed', description: null });
      // The same again changes nothing: the same answer, no event.
      expect((await pay(job.jobRequestId, { status: 'failed' }).expect(200)).body).toEqual(failed);
      const events = await eventsOf(job.jobRequestId, 'jobRequest.paymentStatusChanged', 2);
      expect(events.filter((e) => e.eventName === 'jobRequest.paymentStatusChanged').map((e) => e.results)).toEqual([[res.body], [failed]]);
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body).toEqual(job);
    });

    it('validates the status and description', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      expect(pointersOf(await pay(job.jobRequestId, {}).expect(400))).toEqual(['#/status']);
      expect(pointersOf(await pay(job.jobRequestId, { status: 'paid' }).expect(400))).toEqual(['#/status']);
      expect(pointersOf(await pay(job.jobRequestId, { status: 'pending', description: 5 }).expect(400))).toEqual(['#/description']);
      expectProblem(await pay(job.jobRequestId, { status: 'pending', amount: 5 }), 400, 'objectStrict');
    });

    it.each(STATUSES)('is allowed in status %i', async (status) => {
      const job = await inStatus(status);
      expect((await pay(job.jobRequestId, { status: 'successful' }).expect(200)).body.status).toBe('successful');
    });
  });

  it('isolation: another account’s job is a 404 on every host route, and nothing changes', async () => {
    const job = await createJob(s.api, s.property.propertyId);
    const id = job.jobRequestId;
    expectProblem(await s.otherApi.get(`/v1/jobRequests/${id}`), 404, 'notFound');
    expectProblem(await s.otherApi.patch(`/v1/jobRequests/${id}`).send({ offeredPrice: 1 }), 404, 'notFound');
    expectProblem(await s.otherApi.post(`/v1/jobRequests/${id}/oneOffTasks`).send({ tasks: [{ title: 'x', note: 'y' }] }), 404, 'notFound');
    expectProblem(await s.otherApi.post(`/v1/jobRequests/${id}/cancel`), 404, 'notFound');
    expectProblem(await s.otherApi.patch(`/v1/jobRequests/${id}/paymentStatus`).send({ status: 'failed' }), 404, 'notFound');
    expectProblem(await s.otherApi.get(`/v1/jobRequests/${id}/comments`), 404, 'notFound');
    expectProblem(await s.otherApi.post(`/v1/jobRequests/${id}/comments`).send({ message: 'hi' }), 404, 'notFound');
    const listed = await s.otherApi.get('/v1/jobRequests?dateFrom=2030-01-01T00:00:00Z&dateTo=2031-01-01T00:00:00Z').expect(200);
    expect(listed.body.data).toEqual([]);
    for (const path of [`/v1/jobRequests/job_01ARZ3NDEKTSV4RRFFQ69G5FAV`, '/v1/jobRequests/nope']) {
      expectProblem(await s.api.patch(path).send({ offeredPrice: 1 }), 404, 'notFound');
      expectProblem(await s.api.post(`${path}/cancel`), 404, 'notFound');
    }
    expect((await s.api.get(`/v1/jobRequests/${id}`)).body).toEqual(job);
  });
});
