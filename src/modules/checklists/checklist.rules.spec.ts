import { DomainError, InvalidStateError, ValidationError } from '../../platform/errors/domain-error';
import { thrown as thrownAny } from '../../platform/errors/thrown';
import { isIdOf } from '../../platform/ids/ids';
import {
  assertTaskGroupShapes,
  assertUpdatable,
  BOTH_PICTURE_AND_TASKS,
  buildSnapshots,
  mintTaskGroups,
  SnapshotSource,
  taskGroupShapeIssues,
} from './checklist.rules';
import { CHECKLIST_IDS } from './checklists.ids';

const thrown = (fn: () => unknown) => thrownAny<DomainError>(fn);

describe('taskGroupShapeIssues (a group has exactly one of sourcePictureUrl or tasks)', () => {
  it('accepts tasks only and picture only', () => {
    expect(
      taskGroupShapeIssues([
        { title: 'a', tasks: [{ label: 'abc' }] },
        { title: 'b', sourcePictureUrl: 'https://x.test/p.png' },
      ]),
    ).toEqual([]);
  });

  it('rejects both with the spec message at the group sourcePictureUrl pointer', () => {
    const issues = taskGroupShapeIssues([
      { title: 'ok', tasks: [{ label: 'abc' }] },
      { title: 'both', sourcePictureUrl: 'https://x.test/p.png', tasks: [{ label: 'abc' }] },
    ]);
    expect(issues).toEqual([{ pointer: '#/taskGroups/1/sourcePictureUrl', detail: BOTH_PICTURE_AND_TASKS }]);
    expect(BOTH_PICTURE_AND_TASKS).toBe('The sourcePictureUrl field can only be set if the field tasks is not provided.');
  });

  it('rejects neither (null counts as absent)', () => {
    const issues = taskGroupShapeIssues([{ title: 'none' }, { title: 'nulls', sourcePictureUrl: null, tasks: null }]);
    expect(issues.map((i) => i.pointer)).toEqual(['#/taskGroups/0/tasks', '#/taskGroups/1/tasks']);
    expect(issues[0].detail).toBe('taskGroups[0] must carry either tasks or sourcePictureUrl');
  });

  it('assertTaskGroupShapes: detail is exactly the message when every issue shares it', () => {
    const both = { title: 'x', sourcePictureUrl: 'https://x.test/p.png', tasks: [{ label: 'abc' }] };
    const error = thrown(() => assertTaskGroupShapes([both, both]));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toBe(BOTH_PICTURE_AND_TASKS);
    expect((error.extras.errors as unknown[]).length).toBe(2);
    expect(() => assertTaskGroupShapes([{ title: 'x', tasks: [{ label: 'abc' }] }])).not.toThrow();
  });
});

describe('mintTaskGroups', () => {
  const input = [
    {
      title: 'Kitchen',
      sourceTaskGroupId: 'grp-1',
      verificationRequired: true,
      tasks: [{ label: 'Wipe', sourceTaskId: 't-1' }, { label: 'Mop' }],
    },
    { title: 'Photo', sourcePictureUrl: 'https://x.test/p.png' },
  ];

  it('mints a fresh id for every group and task, keeping the client fields', () => {
    const groups = mintTaskGroups(input);
    expect(groups).toHaveLength(2);
    expect(isIdOf(CHECKLIST_IDS.taskGroup, groups[0].taskGroupId)).toBe(true);
    expect(groups[0].tasks.every((t) => isIdOf(CHECKLIST_IDS.task, t.taskId))).toBe(true);
    expect(groups[0]).toMatchObject({ title: 'Kitchen', sourceTaskGroupId: 'grp-1', verificationRequired: true, sourcePictureUrl: null });
    expect(groups[0].tasks.map((t) => [t.label, t.sourceTaskId])).toEqual([
      ['Wipe', 't-1'],
      ['Mop', null],
    ]);
    expect(groups[1]).toMatchObject({
      title: 'Photo',
      sourceTaskGroupId: null,
      verificationRequired: false,
      sourcePictureUrl: 'https://x.test/p.png',
      tasks: [],
    });
  });

  it('re-minting the same structure gives entirely new ids', () => {
    const ids = (groups: ReturnType<typeof mintTaskGroups>) => groups.flatMap((g) => [g.taskGroupId, ...g.tasks.map((t) => t.taskId)]);
    const first = ids(mintTaskGroups(input));
    const second = ids(mintTaskGroups(input));
    expect(new Set([...first, ...second]).size).toBe(first.length + second.length);
  });

  it('uses the given id source', () => {
    let n = 0;
    const groups = mintTaskGroups([{ title: 'g', tasks: [{ label: 'abc' }] }], (kind) => `${kind}-${n++}`);
    expect(groups[0].taskGroupId).toBe('taskGroup-0');
    expect(groups[0].tasks[0].taskId).toBe('task-1');
  });
});

describe('assertUpdatable', () => {
  it('refuses a disabled checklist with 409 invalidState', () => {
    expect(() => assertUpdatable({ id: 'chk_1', disabledAt: null })).not.toThrow();
    const error = thrown(() => assertUpdatable({ id: 'chk_1', disabledAt: new Date() }));
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error.code).toBe('invalidState');
  });
});

describe('buildSnapshots', () => {
  const row = (id: string, disabledAt: Date | null = null): SnapshotSource => ({
    id,
    propertyId: 'prop_1',
    title: `Title ${id}`,
    description: null,
    disabledAt,
    taskGroups: [
      {
        taskGroupId: `tgrp_${id}`,
        title: 'g',
        sourceTaskGroupId: null,
        verificationRequired: false,
        sourcePictureUrl: null,
        tasks: [{ taskId: `task_${id}`, label: 'abc', sourceTaskId: null }],
      },
    ],
  });

  it('returns snapshots in request order', () => {
    const snapshots = buildSnapshots(['chk_b', 'chk_a'], [row('chk_a'), row('chk_b')]);
    expect(snapshots.map((s) => s.checklistId)).toEqual(['chk_b', 'chk_a']);
    expect(snapshots[0]).toEqual({
      checklistId: 'chk_b',
      propertyId: 'prop_1',
      title: 'Title chk_b',
      description: null,
      taskGroups: row('chk_b').taskGroups,
    });
    expect(snapshots[0]).not.toHaveProperty('disabledAt');
  });

  it('copies deeply: later changes to the source do not reach the snapshot', () => {
    const source = row('chk_a');
    const [snapshot] = buildSnapshots(['chk_a'], [source]);
    source.taskGroups[0].tasks[0].label = 'changed';
    source.taskGroups.push({ ...source.taskGroups[0], taskGroupId: 'tgrp_new' });
    expect(snapshot.taskGroups).toHaveLength(1);
    expect(snapshot.taskGroups[0].tasks[0].label).toBe('abc');
  });

  it('unknown ids and repeats are a 400 naming each at its pointer', () => {
    const error = thrown(() => buildSnapshots(['chk_a', 'chk_x', 'chk_a'], [row('chk_a')], (i) => `#/job/checklists/${i}/checklistId`));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.extras.errors).toEqual([
      { pointer: '#/job/checklists/1/checklistId', detail: 'Checklist chk_x was not found' },
      { pointer: '#/job/checklists/2/checklistId', detail: 'Checklist chk_a is listed more than once' },
    ]);
  });

  it('default pointer is #/checklists/<i>/checklistId', () => {
    const error = thrown(() => buildSnapshots(['chk_x'], []));
    expect(error.extras.errors).toEqual([{ pointer: '#/checklists/0/checklistId', detail: 'Checklist chk_x was not found' }]);
  });

  it('a disabled checklist is a 409 listing the disabled ids', () => {
    const error = thrown(() => buildSnapshots(['chk_a', 'chk_b'], [row('chk_a'), row('chk_b', new Date())]));
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error.extras).toEqual({ checklistIds: ['chk_b'] });
  });

  it('no ids gives no snapshots', () => {
    expect(buildSnapshots([], [])).toEqual([]);
  });
});
