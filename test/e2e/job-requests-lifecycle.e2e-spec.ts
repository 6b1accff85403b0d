import { clientFor, createAccount, startApp, suite, TestApp } from '../support/app';
import { feedEvents } from '../support/events';
import { ANN, BOB, createChecklist, createJob, jobInStatus, provider } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

const STATUSES = [1, 2, 3, 4, 5, 7, 8, 9];

describe('job requests: the provider side through the test helpers', () => {
  const s = suite({ env: { TEST_HELPERS_ENABLED: 'true' }, property: { location: { latitude: 48.8566, longitude: 2.3522 } } });

  const inStatus = (status: number, overrides: Record<string, unknown> = {}) =>
    jobInStatus(s.api, s.property.propertyId, status, overrides);

  /** Every helper against every status: the move the table allows, else 409 invalidState naming the status. */
  const TRANSITIONS: Array<[string, (p: ReturnType<typeof provider>) => PromiseLike<any>, Record<number, number>]> = [
    ['accept', (p) => p.accept(), { 1: 2 }],
    ['decline', (p) => p.decline(), { 1: 1 }],
    ['start', (p) => p.start(), { 2: 5 }],
    ['complete', (p) => p.complete(), { 5: 7 }],
    ['cancelByCleaner', (p) => p.cancelByCleaner(), { 2: 8, 9: 8 }],
    ['acceptChanges', (p) => p.acceptChanges(), { 9: 2 }],
    ['declineChanges', (p) => p.declineChanges(), { 9: 1 }],
  ];

  describe.each(TRANSITIONS)('%s', (name, act, allowed) => {
    it.each(STATUSES)(`from status %i`, async (from) => {
      const job = await inStatus(from);
      const res = await act(provider(s.api, job.jobRequestId));
      if (allowed[from] !== undefined) {
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(allowed[from]);
        expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body).toEqual(res.body);
      } else {
        const problem = expectProblem(res, 409, 'invalidState', `/v1/testHelpers/jobRequests/${job.jobRequestId}/${name}`);
        expect(problem.detail).toContain(`is in status ${from} (`);
        expect(problem.status).toBe(409);
        expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body.status).toBe(from);
      }
    });
  });

  describe('accept and decline', () => {
    it('accept sets the cleaner: email as invited, name, a stable id per provider', async () => {
      const job = await createJob(s.api, s.property.propertyId, { serviceProviders: [{ email: 'Ann@Cleaners.example' }] });
      const accepted = (await provider(s.api, job.jobRequestId).accept('ann@cleaners.example', { name: 'Ann Smith' }).expect(200)).body;
      expect(accepted).toMatchObject({
        status: 2,
        cleanerEmail: 'Ann@Cleaners.example',
        cleanerName: 'Ann Smith',
        cleanerId: expect.stringMatching(/^cln_/),
      });
      const other = await createJob(s.api, s.property.propertyId, { serviceProviders: [{ email: 'ann@cleaners.example' }] });
      const again = (await provider(s.api, other.jobRequestId).accept('ANN@cleaners.example').expect(200)).body;
      expect(again.cleanerId).toBe(accepted.cleanerId);
      expect(again.cleanerName).toBe('ann');
    });

    it('only an invited provider may answer (400 at #/email); one who declined can no longer accept (409)', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const p = provider(s.api, job.jobRequestId);
      const stranger = await p.accept('eve@cleaners.example');
      expectProblem(stranger, 400, 'validationFailed');
      expect(pointersOf(stranger)).toEqual(['#/email']);
      expect(pointersOf(await p.decline('eve@cleaners.example').expect(400))).toEqual(['#/email']);
      expect((await p.decline(ANN).expect(200)).body.status).toBe(1);
      expectProblem(await p.decline(ANN), 409, 'invalidState');
      expectProblem(await p.accept(ANN), 409, 'invalidState');
      expect((await p.accept(BOB).expect(200)).body).toMatchObject({ status: 2, cleanerEmail: BOB });
    });

    it('moves to 4 when every invited provider has declined', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const p = provider(s.api, job.jobRequestId);
      expect((await p.decline(BOB).expect(200)).body.status).toBe(1);
      expect((await p.decline(ANN).expect(200)).body.status).toBe(4);
    });

    it('validates the bodies strictly', async () => {
      const job = await createJob(s.api, s.property.propertyId);
      const p = provider(s.api, job.jobRequestId);
      expectProblem(await s.api.post(`/v1/testHelpers/jobRequests/${job.jobRequestId}/accept`).send({}), 400, 'validationFailed');
      expectProblem(await p.accept('not-an-email'), 400, 'validationFailed');
      expectProblem(await p.accept(ANN, { colour: 'red' }), 400, 'objectStrict');
      expectProblem(
        await s.api.post(`/v1/testHelpers/jobRequests/${job.jobRequestId}/cancelByCleaner`).send({ reason: 'x' }),
        400,
        'objectStrict',
      );
    });
  });

  describe('declineChanges and acceptChanges', () => {
    it('declineChanges reopens the job: 9 → 1, cleaner cleared, that provider may accept again', async () => {
      const job = await inStatus(9);
      expect(job).toMatchObject({ status: 9, cleanerEmail: ANN });
      const reopened = (await provider(s.api, job.jobRequestId).declineChanges().expect(200)).body;
      expect(reopened).toMatchObject({ status: 1, cleanerId: null, cleanerEmail: null, cleanerName: null });
      expect((await provider(s.api, job.jobRequestId).accept(ANN).expect(200)).body.status).toBe(2);
    });

    it('acceptChanges keeps the cleaner: 9 → 2', async () => {
      const job = await inStatus(9);
      expect((await provider(s.api, job.jobRequestId).acceptChanges().expect(200)).body).toMatchObject({ status: 2, cleanerEmail: ANN });
    });
  });

  describe('start and complete', () => {
    it('start records actualStartTime and the distance from the property, never the coordinates', async () => {
      const job = await inStatus(2);
      const started = (await provider(s.api, job.jobRequestId).start({ latitude: 48.8576, longitude: 2.3522 }).expect(200)).body;
      expect(started.status).toBe(5);
      expect(Date.parse(started.actualStartTime)).toBeGreaterThan(Date.parse(job.createdTime) - 1000);
      expect(started.verification.startDistanceMeters).toBe(111);
      expect(started.verification).not.toHaveProperty('endDistanceMeters');
      expect(JSON.stringify(started)).not.toContain('48.8576');
    });

    it('without a position there is no distance; one coordinate alone is a 400', async () => {
      const job = await inStatus(2);
      const p = provider(s.api, job.jobRequestId);
      expect(pointersOf(await p.start({ latitude: 1 }).expect(400))).toEqual(['#/longitude']);
      expect(pointersOf(await p.start({ longitude: 1 }).expect(400))).toEqual(['#/latitude']);
      expect(pointersOf(await p.start({ latitude: 91, longitude: 0 }).expect(400))).toEqual(['#/latitude']);
      const started = (await p.start().expect(200)).body;
      expect(started.verification).not.toHaveProperty('startDistanceMeters');
    });

    it('complete records the counts, problems without description, the end distance, and reports tasks by taskId', async () => {
      const checklist = await createChecklist(s.api, s.property.propertyId, { groups: 2, tasksPerGroup: 2, verified: 1 });
      const job = await inStatus(5, { checklists: [{ checklistId: checklist.checklistId }] });
      const [first, second] = checklist.taskGroups[0].tasks.map((task) => task.taskId);
      const completed = (
        await provider(s.api, job.jobRequestId)
          .complete({
            completedTaskIds: [first, second],
            verificationPictureCount: 1,
            problems: [{ severity: 4, status: 'open', step: 'Step 1', checklist: 'Turnover', description: 'Broken glass in the sink' }],
            latitude: 48.8566,
            longitude: 2.3522,
          })
          .expect(200)
      ).body;
      expect(completed.status).toBe(7);
      expect(completed.actualEndTime).toEqual(expect.any(String));
      expect(completed.verification).toEqual({
        completedTaskCount: 3,
        totalTaskCount: 5,
        verificationPictureCount: 1,
        requiredVerificationPictureCount: 1,
        problemCount: 1,
        problems: [{ severity: 4, status: 'open', step: 'Step 1', checklist: 'Turnover', reportedAt: expect.any(String) }],
        endDistanceMeters: 0,
      });
      expect(JSON.stringify(completed)).not.toContain('Broken glass');
      const events = await feedEvents(s.api, {
        until: (all) => all.some((e) => e.eventName === 'jobRequest.completed' && e.results[0].jobRequestId === job.jobRequestId),
      });
      const event = events.find((e) => e.eventName === 'jobRequest.completed' && e.results[0].jobRequestId === job.jobRequestId)!;
      const { tasks, ...snapshot } = event.results[0];
      expect(snapshot).toEqual(completed);
      expect(tasks).toEqual(
        checklist.taskGroups.flatMap((group) =>
          group.tasks.map((task) => ({
            taskId: task.taskId,
            checklistId: checklist.checklistId,
            label: task.label,
            sourceTaskId: null,
            completed: task.taskId === first || task.taskId === second,
          })),
        ),
      );
      expect(JSON.stringify(event)).not.toContain('Broken glass');
    });

    it('refuses completedTaskIds that are not the job’s tasks or repeat, and bad problems', async () => {
      const checklist = await createChecklist(s.api, s.property.propertyId);
      const job = await inStatus(5, { checklists: [{ checklistId: checklist.checklistId }] });
      const p = provider(s.api, job.jobRequestId);
      const taskId = checklist.taskGroups[0].tasks[0].taskId;
      expect(pointersOf(await p.complete({ completedTaskIds: [taskId, 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV'] }).expect(400))).toEqual([
        '#/completedTaskIds/1',
      ]);
      expect(pointersOf(await p.complete({ completedTaskIds: [taskId, taskId] }).expect(400))).toEqual(['#/completedTaskIds/1']);
      const problem = { severity: 6, status: 'open', step: 's', checklist: 'c' };
      expect(pointersOf(await p.complete({ problems: [problem] }).expect(400))).toEqual(['#/problems/0/severity']);
      expect(pointersOf(await p.complete({ problems: [{ ...problem, severity: 0, status: 'done' }] }).expect(400))).toEqual([
        '#/problems/0/status',
      ]);
      expect(pointersOf(await p.complete({ verificationPictureCount: -1 }).expect(400))).toEqual(['#/verificationPictureCount']);
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`)).body.status).toBe(5);
      expect((await p.complete({ problems: [{ ...problem, severity: 0 }] }).expect(200)).body.verification.problems).toHaveLength(1);
    });
  });

  it('a provider’s chat message is a comment with comment.new; only invited providers may write', async () => {
    const job = await createJob(s.api, s.property.propertyId);
    const p = provider(s.api, job.jobRequestId);
    const res = await p.comment('On my way', BOB).expect(201);
    expect(res.body).toEqual({
      commentId: expect.stringMatching(/^cmt_/),
      jobRequestId: job.jobRequestId,
      authorKind: 'provider',
      authorEmail: BOB,
      message: 'On my way',
      languageCode: null,
      pictureUrl: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(pointersOf(await p.comment('hello', 'eve@cleaners.example').expect(400))).toEqual(['#/authorEmail']);
    const events = await feedEvents(s.api, { until: (all) => all.some((e) => e.results[0]?.commentId === res.body.commentId) });
    expect(
      events.filter((e) => e.eventName === 'comment.new' && e.results[0].jobRequestId === job.jobRequestId).map((e) => e.results),
    ).toEqual([[res.body]]);
    const listed = await s.api.get(`/v1/jobRequests/${job.jobRequestId}/comments`).expect(200);
    expect(listed.body.data).toEqual([res.body]);
  });

  it('drives a job from creation to completion, with the right events in the feed', async () => {
    const own = await createProperty(s.api);
    const checklist = await createChecklist(s.api, own.propertyId, { groups: 1, tasksPerGroup: 2, verified: 1 });
    const job = await createJob(s.api, own.propertyId, { checklists: [{ checklistId: checklist.checklistId }], offeredPrice: 50 });
    const p = provider(s.api, job.jobRequestId);
    await p.decline(BOB).expect(200);
    await p.accept(ANN).expect(200);
    await s.api.patch(`/v1/jobRequests/${job.jobRequestId}`).send({ offeredPrice: 60 }).expect(200);
    await p.acceptChanges().expect(200);
    await p.comment('Arriving at 10', ANN).expect(201);
    await p.start({ latitude: 48.8566, longitude: 2.3522 }).expect(200);
    await s.api
      .post(`/v1/jobRequests/${job.jobRequestId}/oneOffTasks`)
      .send({ tasks: [{ title: 'Water plants', note: 'Balcony' }] })
      .expect(200);
    const done = (
      await p
        .complete({ completedTaskIds: checklist.taskGroups[0].tasks.map((task) => task.taskId), verificationPictureCount: 1 })
        .expect(200)
    ).body;
    await s.api.patch(`/v1/jobRequests/${job.jobRequestId}/paymentStatus`).send({ status: 'successful' }).expect(200);
    expect(done).toMatchObject({
      status: 7,
      offeredPrice: 60,
      cleanerEmail: ANN,
      verification: { completedTaskCount: 3, totalTaskCount: 4 },
    });

    const events = await feedEvents(s.api, {
      until: (all) => all.some((e) => e.eventName === 'jobRequest.paymentStatusChanged' && e.results[0].jobRequestId === job.jobRequestId),
    });
    const mine = events.filter((e) => e.results[0]?.jobRequestId === job.jobRequestId);
    expect(mine.map((e) => [e.eventName, e.results[0].status])).toEqual([
      ['jobRequest.created', 1],
      ['jobRequest.declined', 1],
      ['jobRequest.accepted', 2],
      ['jobRequest.updated', 9],
      ['jobRequest.changesPending', 9],
      ['jobRequest.accepted', 2],
      ['comment.new', undefined],
      ['jobRequest.started', 5],
      ['jobRequest.updated', 5],
      ['jobRequest.completed', 7],
      ['jobRequest.paymentStatusChanged', 'successful'],
    ]);
    expect(mine.find((e) => e.eventName === 'jobRequest.completed')!.results[0].verification).toEqual(done.verification);
    // Finished: the property has no active job left, so it can go; the job stays as it was.
    await s.api.delete(`/v1/properties/${own.propertyId}`).expect(204);
    expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(done);
  });

  describe('deletion hooks across statuses', () => {
    it.each(STATUSES)('a property whose only job is in status %i', async (status) => {
      const own = await createProperty(s.api);
      const checklist = await createChecklist(s.api, own.propertyId);
      const job = await jobInStatus(s.api, own.propertyId, status, { checklists: [{ checklistId: checklist.checklistId }] });
      const res = await s.api.delete(`/v1/properties/${own.propertyId}`);
      if ([1, 2, 5, 9].includes(status)) {
        expectProblem(res, 409, 'conflict');
        expect(res.body.activeJobRequestCount).toBe(1);
      } else {
        expect(res.status).toBe(204);
        await s.api.get(`/v1/properties/${own.propertyId}`).expect(404);
      }
      expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(job);
    });
  });

  it('isolation: another account’s job is a 404 on every helper', async () => {
    const job = await createJob(s.api, s.property.propertyId);
    const foreign = provider(s.otherApi, job.jobRequestId);
    for (const res of [
      await foreign.accept(),
      await foreign.decline(),
      await foreign.start(),
      await foreign.complete(),
      await foreign.cancelByCleaner(),
      await foreign.acceptChanges(),
      await foreign.declineChanges(),
      await foreign.comment('hi'),
    ])
      expectProblem(res, 404, 'notFound');
    expectProblem(await provider(s.api, 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV').accept(), 404, 'notFound');
    expect((await s.api.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body).toEqual(job);
  });

  it('needs the key like every route', async () => {
    const job = await createJob(s.api, s.property.propertyId);
    expectProblem(await s.t.http.post(`/v1/testHelpers/jobRequests/${job.jobRequestId}/accept`).send({ email: ANN }), 401, 'unauthorized');
  });
});

describe('job requests: test helpers switched off', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('answers 404 on every helper route when TEST_HELPERS_ENABLED is not true', async () => {
    t = await startApp({ TEST_HELPERS_ENABLED: 'false' });
    const api = clientFor(t, await createAccount(t));
    const job = await createJob(api, (await createProperty(api)).propertyId);
    for (const action of ['accept', 'decline', 'start', 'complete', 'cancelByCleaner', 'acceptChanges', 'declineChanges', 'comments']) {
      expectProblem(await api.post(`/v1/testHelpers/jobRequests/${job.jobRequestId}/${action}`).send({ email: ANN }), 404, 'notFound');
    }
  });
});
