import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ChecklistsService } from '../../src/modules/checklists/checklists.service';
import { clientFor, createAccount, suite } from '../support/app';
import { feedEvents } from '../support/events';
import { createProperty } from '../support/properties';

const BOTH = 'The sourcePictureUrl field can only be set if the field tasks is not provided.';

function body(propertyId: string, overrides: Record<string, unknown> = {}) {
  return {
    title: 'Turnover clean',
    description: 'Between guests',
    propertyId,
    taskGroups: [
      {
        title: 'Kitchen',
        sourceTaskGroupId: 'grp-kitchen',
        verificationRequired: true,
        tasks: [{ label: 'Wipe the counters', sourceTaskId: 'task-wipe' }, { label: 'Mop the floor' }],
      },
      { title: 'Living room photo', sourcePictureUrl: 'https://images.example.com/living.png' },
    ],
    ...overrides,
  };
}

/** Every taskGroupId and taskId of a checklist read shape. */
function idsOf(checklist: { taskGroups: Array<{ taskGroupId: string; tasks: Array<{ taskId: string }> }> }): string[] {
  return checklist.taskGroups.flatMap((g) => [g.taskGroupId, ...g.tasks.map((t) => t.taskId)]);
}

describe('checklists', () => {
  const s = suite({ property: true, otherProperty: true });

  const create = (overrides: Record<string, unknown> = {}) => s.api.post('/v1/checklists').send(body(s.property.propertyId, overrides));
  const withGroup = (group: Record<string, unknown>) => create({ taskGroups: [group] });
  const withTask = (task: Record<string, unknown>) => withGroup({ title: 'G', tasks: [task] });

  describe('POST /v1/checklists', () => {
    it('creates a checklist with server-minted ids in the read shape', async () => {
      const res = await create().expect(201);
      const c = res.body;
      expect(c.checklistId).toMatch(/^chk_[0-9A-Z]{26}$/);
      expect(c).toMatchObject({
        propertyId: s.property.propertyId,
        title: 'Turnover clean',
        description: 'Between guests',
        disabled: false,
        disabledAt: null,
      });
      expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
      expect(c.updatedAt).toBe(c.createdAt);
      expect(c.taskGroups).toHaveLength(2);
      const [kitchen, photo] = c.taskGroups;
      expect(kitchen.taskGroupId).toMatch(/^tgrp_/);
      expect(kitchen).toMatchObject({
        title: 'Kitchen',
        sourceTaskGroupId: 'grp-kitchen',
        verificationRequired: true,
        sourcePictureUrl: null,
      });
      expect(kitchen.tasks).toEqual([
        { label: 'Wipe the counters', sourceTaskId: 'task-wipe', taskId: expect.stringMatching(/^task_/) },
        { label: 'Mop the floor', sourceTaskId: null, taskId: expect.stringMatching(/^task_/) },
      ]);
      expect(photo).toMatchObject({
        title: 'Living room photo',
        sourceTaskGroupId: null,
        verificationRequired: false,
        sourcePictureUrl: 'https://images.example.com/living.png',
        tasks: [],
      });
      expect(new Set(idsOf(c)).size).toBe(4);
    });

    it('accepts sourcePropertyId instead of propertyId', async () => {
      const res = await s.api
        .post('/v1/checklists')
        .send(body(s.property.propertyId, { propertyId: undefined, sourcePropertyId: s.property.sourceId }))
        .expect(201);
      expect(res.body.propertyId).toBe(s.property.propertyId);
    });

    it('rejects both or neither property identifier, and 404s unknown or foreign ones', async () => {
      const both = await create({ sourcePropertyId: s.property.sourceId }).expect(400);
      expect(both.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/propertyId', '#/sourcePropertyId']);
      await create({ propertyId: undefined }).expect(400);
      const unknownId = await create({ propertyId: 'prop_01ARZ3NDEKTSV4RRFFQ69G5FAV' }).expect(404);
      expect(unknownId.body.detail).toContain('prop_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      const unknownSource = await create({ propertyId: undefined, sourcePropertyId: 'no-such-source' }).expect(404);
      expect(unknownSource.body.detail).toContain('no-such-source');
      await create({ propertyId: s.otherProperty.propertyId }).expect(404);
      await create({ propertyId: undefined, sourcePropertyId: s.otherProperty.sourceId }).expect(404);
    });

    it('a group with both sourcePictureUrl and tasks fails with the spec message', async () => {
      const res = await create({
        taskGroups: [
          { title: 'Fine', tasks: [{ label: 'abc' }] },
          { title: 'Both', sourcePictureUrl: 'https://images.example.com/x.png', tasks: [{ label: 'abc' }] },
        ],
      }).expect(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body.detail).toBe(BOTH);
      expect(res.body.errors).toEqual([{ pointer: '#/taskGroups/1/sourcePictureUrl', detail: BOTH }]);
    });

    it('a group with neither sourcePictureUrl nor tasks fails', async () => {
      const res = await withGroup({ title: 'Empty' }).expect(400);
      expect(res.body.code).toBe('validationFailed');
      expect(res.body.errors).toEqual([
        { pointer: '#/taskGroups/0/tasks', detail: 'taskGroups[0] must carry either tasks or sourcePictureUrl' },
      ]);
    });

    it('task label is 3-500 characters', async () => {
      const short = await withTask({ label: 'ab' }).expect(400);
      expect(short.body.errors[0].pointer).toBe('#/taskGroups/0/tasks/0/label');
      expect(short.body.errors[0].detail).toContain('taskGroups[0].tasks[0].label');
      await withTask({ label: 'abc' }).expect(201);
      await withTask({ label: 'x'.repeat(500) }).expect(201);
      const long = await withTask({ label: 'x'.repeat(501) }).expect(400);
      expect(long.body.errors[0].pointer).toBe('#/taskGroups/0/tasks/0/label');
      await withTask({}).expect(400);
    });

    it('sourceTaskId and sourceTaskGroupId are at least 3 characters', async () => {
      const task = await withTask({ label: 'abc', sourceTaskId: 'ab' }).expect(400);
      expect(task.body.errors[0].pointer).toBe('#/taskGroups/0/tasks/0/sourceTaskId');
      await withTask({ label: 'abc', sourceTaskId: 'abc' }).expect(201);
      const group = await withGroup({ title: 'G', sourceTaskGroupId: 'ab', tasks: [{ label: 'abc' }] }).expect(400);
      expect(group.body.errors[0].pointer).toBe('#/taskGroups/0/sourceTaskGroupId');
      await withGroup({ title: 'G', sourceTaskGroupId: 'abc', tasks: [{ label: 'abc' }] }).expect(201);
      await withTask({ label: 'abc', sourceTaskId: 'x'.repeat(101) }).expect(400);
    });

    it('taskGroups and tasks must be non-empty and within their maximum counts', async () => {
      const noGroups = await create({ taskGroups: [] }).expect(400);
      expect(noGroups.body.errors[0].pointer).toBe('#/taskGroups');
      await create({ taskGroups: undefined }).expect(400);
      const noTasks = await withGroup({ title: 'G', tasks: [] }).expect(400);
      expect(noTasks.body.errors[0].pointer).toBe('#/taskGroups/0/tasks');
      const group = { title: 'G', tasks: [{ label: 'abc' }] };
      await create({ taskGroups: Array(100).fill(group) }).expect(201);
      await create({ taskGroups: Array(101).fill(group) }).expect(400);
      await withGroup({ title: 'G', tasks: Array(200).fill({ label: 'abc' }) }).expect(201);
      await withGroup({ title: 'G', tasks: Array(201).fill({ label: 'abc' }) }).expect(400);
    });

    it('title is required, 1-200 characters; description at most 5000', async () => {
      await create({ title: undefined }).expect(400);
      await create({ title: '' }).expect(400);
      await create({ title: 'x'.repeat(200) }).expect(201);
      await create({ title: 'x'.repeat(201) }).expect(400);
      await create({ description: 'x'.repeat(5000) }).expect(201);
      await create({ description: 'x'.repeat(5001) }).expect(400);
      await withGroup({ tasks: [{ label: 'abc' }] }).expect(400);
    });

    it('rejects wrong types without a 500', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ title: 42 }, '#/title'],
        [{ description: 42 }, '#/description'],
        [{ taskGroups: 'x' }, '#/taskGroups'],
        [{ taskGroups: [{ title: 'G', verificationRequired: 'yes', tasks: [{ label: 'abc' }] }] }, '#/taskGroups/0/verificationRequired'],
        [{ taskGroups: [{ title: 'G', sourcePictureUrl: 'ftp://images.example.com/x.png' }] }, '#/taskGroups/0/sourcePictureUrl'],
        [{ taskGroups: [{ title: 'G', sourcePictureUrl: 'not a url' }] }, '#/taskGroups/0/sourcePictureUrl'],
        [{ taskGroups: [{ title: 'G', tasks: [{ label: 123 }] }] }, '#/taskGroups/0/tasks/0/label'],
      ];
      for (const [overrides, pointer] of cases) {
        const res = await create(overrides).expect(400);
        expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
      }
      for (const taskGroups of [
        [null],
        ['x'],
        [{ title: 'G', tasks: ['x'] }],
        [{ title: 'G', tasks: [null] }],
        [{ title: 'G', tasks: 'x' }],
      ]) {
        const res = await create({ taskGroups }).expect(400);
        expect(res.body.status).toBe(400);
      }
      await s.api
        .post('/v1/checklists')
        .send([body(s.property.propertyId)])
        .expect(400);
    });

    it('a NUL character in a body string is a 400 and in a path id a 404 (an unknown id), never a 500', async () => {
      const nulTitle = await create({ title: 'Turn\u0000over' }).expect(400);
      expect(nulTitle.body.code).toBe('invalidCharacters');
      await withTask({ label: 'ab\u0000c' }).expect(400);
      await create({ propertyId: 'prop_\u0000' }).expect(400);
      for (const res of [
        await s.api.post('/v1/checklists/chk_%00/disable').expect(404),
        await s.api.patch('/v1/checklists/chk_%00').send({ title: 'x' }).expect(404),
        await s.api.get('/v1/properties/prop_%00/checklists').expect(404),
      ]) {
        expect(res.body.code).toBe('notFound');
      }
    });

    it('rejects unknown fields at every depth (objectStrict)', async () => {
      const top = await create({ colour: 'red' }).expect(400);
      expect(top.body.code).toBe('objectStrict');
      expect(top.body.errors).toEqual([{ pointer: '#/colour', detail: expect.stringContaining('colour') }]);

      const group = await withGroup({ title: 'G', tasks: [{ label: 'abc' }], colour: 'red' }).expect(400);
      expect(group.body.code).toBe('objectStrict');
      expect(group.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/taskGroups/0/colour']);

      const task = await withGroup({ title: 'G', tasks: [{ label: 'abc' }, { label: 'abc', colour: 'red' }] }).expect(400);
      expect(task.body.code).toBe('objectStrict');
      expect(task.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/taskGroups/0/tasks/1/colour']);
      expect(task.body.detail).toContain('taskGroups[0].tasks[1].colour');
    });
  });

  describe('PATCH /v1/checklists/{checklistId}', () => {
    it('replacing taskGroups re-mints every taskGroupId and taskId', async () => {
      const created = (await create().expect(201)).body;
      const res = await s.api
        .patch(`/v1/checklists/${created.checklistId}`)
        .send({
          taskGroups: [
            { title: 'Kitchen', verificationRequired: false, tasks: [{ label: 'Wipe the counters', sourceTaskId: 'task-wipe' }] },
            { title: 'Bath', tasks: [{ label: 'Scrub' }, { label: 'Towels' }] },
          ],
        })
        .expect(200);
      const updated = res.body;
      expect(updated.checklistId).toBe(created.checklistId);
      expect(updated.title).toBe(created.title);
      expect(updated.taskGroups.map((g: { title: string }) => g.title)).toEqual(['Kitchen', 'Bath']);
      expect(updated.taskGroups[0]).toMatchObject({ sourceTaskGroupId: null, verificationRequired: false, sourcePictureUrl: null });
      expect(updated.taskGroups[0].tasks[0]).toMatchObject({ label: 'Wipe the counters', sourceTaskId: 'task-wipe' });
      const before = new Set(idsOf(created));
      const after = idsOf(updated);
      expect(after).toHaveLength(5);
      expect(after.filter((id) => before.has(id))).toEqual([]);
      expect(updated.updatedAt >= created.updatedAt).toBe(true);

      const list = await s.api.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(200);
      expect(list.body.data.find((c: { checklistId: string }) => c.checklistId === created.checklistId)).toEqual(updated);
    });

    it('updating the title only keeps the structure and its ids; null description clears it', async () => {
      const created = (await create().expect(201)).body;
      const res = await s.api.patch(`/v1/checklists/${created.checklistId}`).send({ title: 'Renamed' }).expect(200);
      expect(res.body.title).toBe('Renamed');
      expect(res.body.description).toBe('Between guests');
      expect(res.body.taskGroups).toEqual(created.taskGroups);
      const cleared = await s.api.patch(`/v1/checklists/${created.checklistId}`).send({ description: null }).expect(200);
      expect(cleared.body.description).toBeNull();
      expect(cleared.body.title).toBe('Renamed');
      const same = await s.api.patch(`/v1/checklists/${created.checklistId}`).send({}).expect(200);
      expect(same.body).toEqual(cleared.body);
    });

    it('update groups take no sourceTaskGroupId nor sourcePictureUrl, and need tasks', async () => {
      const { checklistId } = (await create().expect(201)).body;
      const patch = (group: Record<string, unknown>) => s.api.patch(`/v1/checklists/${checklistId}`).send({ taskGroups: [group] });
      const sourceGroup = await patch({ title: 'G', sourceTaskGroupId: 'grp-1', tasks: [{ label: 'abc' }] }).expect(400);
      expect(sourceGroup.body.code).toBe('objectStrict');
      expect(sourceGroup.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/taskGroups/0/sourceTaskGroupId']);
      const picture = await patch({ title: 'G', sourcePictureUrl: 'https://images.example.com/x.png' }).expect(400);
      expect(picture.body.code).toBe('objectStrict');
      expect(picture.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['#/taskGroups/0/sourcePictureUrl']);
      const noTasks = await patch({ title: 'G' }).expect(400);
      expect(noTasks.body.errors[0].pointer).toBe('#/taskGroups/0/tasks');
      await patch({ title: 'G', tasks: [] }).expect(400);
      await patch({ title: 'G', tasks: [{ label: 'ab' }] }).expect(400);
      await patch({ title: 'G', tasks: [{ label: 'abc', colour: 'red' }] }).expect(400);
      await s.api.patch(`/v1/checklists/${checklistId}`).send({ taskGroups: [] }).expect(400);
      await s.api.patch(`/v1/checklists/${checklistId}`).send({ taskGroups: null }).expect(400);
      await s.api.patch(`/v1/checklists/${checklistId}`).send({ title: null }).expect(400);
      await s.api.patch(`/v1/checklists/${checklistId}`).send({ title: '' }).expect(400);
      const moved = await s.api.patch(`/v1/checklists/${checklistId}`).send({ propertyId: s.property.propertyId }).expect(400);
      expect(moved.body.code).toBe('objectStrict');
    });

    it('another account, or an unknown id, gets 404', async () => {
      const { checklistId } = (await create().expect(201)).body;
      await s.otherApi.patch(`/v1/checklists/${checklistId}`).send({ title: 'Mine now' }).expect(404);
      await s.api.patch('/v1/checklists/chk_01ARZ3NDEKTSV4RRFFQ69G5FAV').send({ title: 'x' }).expect(404);
      await s.api.patch('/v1/checklists/not-an-id').send({ title: 'x' }).expect(404);
      const list = await s.api.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(200);
      expect(list.body.data.find((c: { checklistId: string }) => c.checklistId === checklistId).title).toBe('Turnover clean');
    });
  });

  describe('POST /v1/checklists/{checklistId}/disable', () => {
    it('disables idempotently, keeps the checklist listed (flagged) and refuses later updates', async () => {
      const created = (await create().expect(201)).body;
      const res = await s.api.post(`/v1/checklists/${created.checklistId}/disable`).expect(200);
      expect(res.body).toMatchObject({ checklistId: created.checklistId, disabled: true, taskGroups: created.taskGroups });
      expect(new Date(res.body.disabledAt).toISOString()).toBe(res.body.disabledAt);
      const again = await s.api.post(`/v1/checklists/${created.checklistId}/disable`).expect(200);
      expect(again.body).toEqual(res.body);

      const list = await s.api.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(200);
      expect(list.body.data.find((c: { checklistId: string }) => c.checklistId === created.checklistId)).toEqual(res.body);

      const refused = await s.api.patch(`/v1/checklists/${created.checklistId}`).send({ title: 'x' }).expect(409);
      expect(refused.body.code).toBe('invalidState');
    });

    it('another account, or an unknown id, gets 404', async () => {
      const { checklistId } = (await create().expect(201)).body;
      await s.otherApi.post(`/v1/checklists/${checklistId}/disable`).expect(404);
      await s.api.post('/v1/checklists/chk_01ARZ3NDEKTSV4RRFFQ69G5FAV/disable').expect(404);
      const list = await s.api.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(200);
      expect(list.body.data.find((c: { checklistId: string }) => c.checklistId === checklistId).disabled).toBe(false);
    });
  });

  describe('GET /v1/properties/{propertyId}/checklists', () => {
    it('lists every checklist of the property, oldest first, unpaginated', async () => {
      const own = await createProperty(s.api);
      const a = (await s.api.post('/v1/checklists').send(body(own.propertyId)).expect(201)).body;
      const b = (
        await s.api
          .post('/v1/checklists')
          .send(body(own.propertyId, { title: 'Second' }))
          .expect(201)
      ).body;
      await create().expect(201); // another property of the same account: not listed
      const res = await s.api.get(`/v1/properties/${own.propertyId}/checklists`).expect(200);
      expect(res.body).toEqual({ data: [a, b], nextCursor: null, hasMore: false });
    });

    it('an empty property lists nothing; unknown or foreign properties are 404', async () => {
      const empty = await createProperty(s.api);
      expect((await s.api.get(`/v1/properties/${empty.propertyId}/checklists`).expect(200)).body).toEqual({
        data: [],
        nextCursor: null,
        hasMore: false,
      });
      await s.api.get('/v1/properties/prop_01ARZ3NDEKTSV4RRFFQ69G5FAV/checklists').expect(404);
      await s.api.get(`/v1/properties/${s.otherProperty.propertyId}/checklists`).expect(404);
      await s.otherApi.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(404);
    });
  });

  describe('property deletion', () => {
    it('deletes the property checklists and emits checklist.delete for each', async () => {
      const doomed = await createProperty(s.api);
      const a = (await s.api.post('/v1/checklists').send(body(doomed.propertyId)).expect(201)).body;
      const b = (await s.api.post('/v1/checklists').send(body(doomed.propertyId)).expect(201)).body;
      await s.api.post(`/v1/checklists/${b.checklistId}/disable`).expect(200);
      const survivor = (await create().expect(201)).body;

      await s.api.delete(`/v1/properties/${doomed.propertyId}`).expect(204);
      await s.api.get(`/v1/properties/${doomed.propertyId}/checklists`).expect(404);
      await s.api.patch(`/v1/checklists/${a.checklistId}`).send({ title: 'x' }).expect(404);
      await s.api.post(`/v1/checklists/${b.checklistId}/disable`).expect(404);
      const remaining = await s.api.get(`/v1/properties/${s.property.propertyId}/checklists`).expect(200);
      expect(remaining.body.data.map((c: { checklistId: string }) => c.checklistId)).toContain(survivor.checklistId);

      // The checklist.delete events commit with property.delete: wait until the feed shows it.
      const events = await feedEvents(s.api, {
        until: (all) => all.some((e) => e.eventName === 'property.delete' && e.results[0].propertyId === doomed.propertyId),
      });
      const deletes = events.filter((e) => e.eventName === 'checklist.delete');
      expect(deletes.map((e) => e.results[0].checklistId)).toEqual([a.checklistId, b.checklistId]);
      expect(deletes[0].results).toEqual([a]);
      expect(deletes[1].results[0]).toMatchObject({ checklistId: b.checklistId, disabled: true });
    });
  });

  describe('events', () => {
    it('checklist.create, .update and .disable carry the read shape; no-op calls write no event', async () => {
      const eventsApi = clientFor(s.t, await createAccount(s.t));
      const own = await createProperty(eventsApi);
      const created = (await eventsApi.post('/v1/checklists').send(body(own.propertyId)).expect(201)).body;
      const updated = (await eventsApi.patch(`/v1/checklists/${created.checklistId}`).send({ title: 'New' }).expect(200)).body;
      await eventsApi.patch(`/v1/checklists/${created.checklistId}`).send({}).expect(200);
      const disabled = (await eventsApi.post(`/v1/checklists/${created.checklistId}/disable`).expect(200)).body;
      await eventsApi.post(`/v1/checklists/${created.checklistId}/disable`).expect(200);
      await eventsApi
        .post('/v1/checklists')
        .send(body(own.propertyId, { colour: 'red' }))
        .expect(400);

      const events = (await feedEvents(eventsApi, { atLeast: 4 })).filter((e) => e.eventName.startsWith('checklist.'));
      expect(events.map((e) => e.eventName)).toEqual(['checklist.create', 'checklist.update', 'checklist.disable']);
      expect(events.map((e) => e.results)).toEqual([[created], [updated], [disabled]]);
      expect(events[0].targetAccountId).toBeDefined();
    });
  });

  describe('ChecklistsService.snapshotForJob (for job requests)', () => {
    it('returns deep copies in order; unknown, foreign or disabled checklists are refused', async () => {
      const service = s.t.app.get(ChecklistsService);
      const uow = s.t.app.get(UnitOfWork);
      const ctx = { accountId: s.account.accountId, requestId: 'req_test', clientRequestId: 'req_test' };
      const a = (await create().expect(201)).body;
      const b = (await create({ title: 'B' }).expect(201)).body;
      const foreign = (await s.otherApi.post('/v1/checklists').send(body(s.otherProperty.propertyId)).expect(201)).body;

      const snapshots = await uow.run(ctx, (tx) => service.snapshotForJob(tx, [b.checklistId, a.checklistId]));
      expect(snapshots).toEqual([
        {
          checklistId: b.checklistId,
          propertyId: s.property.propertyId,
          title: 'B',
          description: 'Between guests',
          taskGroups: b.taskGroups,
        },
        {
          checklistId: a.checklistId,
          propertyId: s.property.propertyId,
          title: a.title,
          description: a.description,
          taskGroups: a.taskGroups,
        },
      ]);

      await expect(uow.run(ctx, (tx) => service.snapshotForJob(tx, [a.checklistId, foreign.checklistId]))).rejects.toMatchObject({
        code: 'validationFailed',
        extras: { errors: [{ pointer: '#/checklists/1/checklistId', detail: `Checklist ${foreign.checklistId} was not found` }] },
      });
      await s.api.post(`/v1/checklists/${a.checklistId}/disable`).expect(200);
      await expect(uow.run(ctx, (tx) => service.snapshotForJob(tx, [a.checklistId]))).rejects.toMatchObject({
        code: 'invalidState',
        extras: { checklistIds: [a.checklistId] },
      });
      // The copies taken earlier are unaffected by the later update.
      await s.api
        .patch(`/v1/checklists/${b.checklistId}`)
        .send({ taskGroups: [{ title: 'New', tasks: [{ label: 'abc' }] }] })
        .expect(200);
      expect(snapshots[0].taskGroups).toEqual(b.taskGroups);
    });
  });
});
