import { ValidationError } from '../../platform/errors/domain-error';
import {
  assertTimeOrder,
  CopiedChecklist,
  distanceFromProperty,
  distanceMeters,
  JobTime,
  locationPair,
  OneOffTask,
  planTasks,
  scheduledEndOf,
  StoredProblem,
  taskIdsOf,
  taskResultsOf,
  verificationOf,
} from './job-snapshot.rules';

const start = new Date('2026-03-01T10:00:00.000Z');
const time = (overrides: Partial<JobTime> = {}): JobTime => ({
  type: 'fixed',
  startTime: start,
  endTime: null,
  durationInHours: null,
  durationInMinutes: null,
  ...overrides,
});

const task = (id: string) => ({ taskId: id, label: `label ${id}`, sourceTaskId: null });
const checklist = (id: string, groups: Array<{ verificationRequired: boolean; tasks: string[] }>): CopiedChecklist => ({
  checklistId: id,
  propertyId: 'prop_1',
  title: `Checklist ${id}`,
  taskGroups: groups.map((g, i) => ({
    taskGroupId: `${id}-g${i}`,
    title: `Step ${i}`,
    verificationRequired: g.verificationRequired,
    tasks: g.tasks.map(task),
  })),
});
const oneOff = (id: string): OneOffTask => ({ taskId: id, title: `Extra ${id}`, note: 'note', sourcePictureUrl: null });

describe('scheduledEndOf', () => {
  it('is endTime when sent, whatever the durations', () => {
    const end = new Date('2026-03-01T12:00:00.000Z');
    expect(scheduledEndOf(time({ endTime: end, durationInHours: 5 }))).toEqual(end);
  });

  it('is start plus hours and minutes otherwise', () => {
    expect(scheduledEndOf(time({ durationInHours: 2 }))?.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(scheduledEndOf(time({ durationInMinutes: 45 }))?.toISOString()).toBe('2026-03-01T10:45:00.000Z');
    expect(scheduledEndOf(time({ durationInHours: 1, durationInMinutes: 30 }))?.toISOString()).toBe('2026-03-01T11:30:00.000Z');
    expect(scheduledEndOf(time({ durationInHours: 999 }))?.toISOString()).toBe('2026-04-12T01:00:00.000Z');
  });

  it('is null with neither', () => {
    expect(scheduledEndOf(time())).toBeNull();
  });
});

describe('assertTimeOrder', () => {
  it('refuses an endTime at or before startTime at #/time/endTime', () => {
    expect(() => assertTimeOrder(time({ endTime: start }))).toThrow(ValidationError);
    try {
      assertTimeOrder(time({ endTime: new Date(start.getTime() - 1) }));
    } catch (error) {
      expect((error as ValidationError).extras.errors).toEqual([{ pointer: '#/time/endTime', detail: expect.stringContaining('after') }]);
    }
    expect(() => assertTimeOrder(time({ endTime: new Date(start.getTime() + 1) }))).not.toThrow();
    expect(() => assertTimeOrder(time())).not.toThrow();
  });
});

describe('planTasks and verificationOf', () => {
  const lists = [
    checklist('a', [
      { verificationRequired: true, tasks: ['a1', 'a2'] },
      { verificationRequired: false, tasks: ['a3'] },
    ]),
    checklist('b', [
      { verificationRequired: true, tasks: [] }, // a picture-only step that requires a photo
      { verificationRequired: true, tasks: ['b1'] },
    ]),
  ];

  it('counts every task, every one-off task and one per step requiring a photo', () => {
    expect(planTasks(lists, [oneOff('x1')])).toEqual({ totalTaskCount: 4 + 1 + 3, requiredVerificationPictureCount: 3 });
    expect(planTasks([], [])).toEqual({ totalTaskCount: 0, requiredVerificationPictureCount: 0 });
  });

  it('three checklists of 20 tasks with one photo step each', () => {
    const big = ['p', 'q', 'r'].map((id) =>
      checklist(id, [{ verificationRequired: true, tasks: Array.from({ length: 20 }, (_, i) => `${id}${i}`) }]),
    );
    expect(planTasks(big, [])).toEqual({ totalTaskCount: 63, requiredVerificationPictureCount: 3 });
  });

  const empty = { completedTaskIds: [], verificationPictureCount: 0, problems: [], startDistanceMeters: null, endDistanceMeters: null };

  it('starts at 0 with no problems and no distances', () => {
    const verification = verificationOf({ ...planTasks(lists, []), ...empty });
    expect(verification).toEqual({
      completedTaskCount: 0,
      totalTaskCount: 7,
      verificationPictureCount: 0,
      requiredVerificationPictureCount: 3,
      problemCount: 0,
    });
    expect(Object.keys(verification)).toEqual([
      'completedTaskCount',
      'totalTaskCount',
      'verificationPictureCount',
      'requiredVerificationPictureCount',
      'problemCount',
    ]);
  });

  it('counts each verification photo as a completed task, up to the photos required', () => {
    const plan = planTasks(lists, []);
    expect(verificationOf({ ...plan, ...empty, completedTaskIds: ['a1', 'b1'], verificationPictureCount: 2 }).completedTaskCount).toBe(4);
    expect(verificationOf({ ...plan, ...empty, completedTaskIds: ['a1', 'a2', 'a3', 'b1'], verificationPictureCount: 9 })).toMatchObject({
      completedTaskCount: 7,
      totalTaskCount: 7,
      verificationPictureCount: 9,
    });
  });

  it('lists problems only when reported, without their description', () => {
    const problem: StoredProblem = {
      severity: 4,
      status: 'open',
      step: 'Kitchen',
      checklist: 'Turnover',
      description: 'broken glass',
      reportedAt: '2026-03-01T11:00:00.000Z',
    };
    const verification = verificationOf({ ...planTasks(lists, []), ...empty, problems: [problem] });
    expect(verification.problemCount).toBe(1);
    expect(verification.problems).toEqual([
      { severity: 4, status: 'open', step: 'Kitchen', checklist: 'Turnover', reportedAt: '2026-03-01T11:00:00.000Z' },
    ]);
    expect(JSON.stringify(verification)).not.toContain('broken glass');
  });

  it('shows each distance only when a location was recorded, 0 included', () => {
    const plan = planTasks([], []);
    expect(verificationOf({ ...plan, ...empty, startDistanceMeters: 0 })).toMatchObject({ startDistanceMeters: 0 });
    expect(verificationOf({ ...plan, ...empty, startDistanceMeters: 0 })).not.toHaveProperty('endDistanceMeters');
    expect(verificationOf({ ...plan, ...empty, endDistanceMeters: 12 })).toMatchObject({ endDistanceMeters: 12 });
    expect(verificationOf({ ...plan, ...empty, endDistanceMeters: 12 })).not.toHaveProperty('startDistanceMeters');
  });
});

describe('tasks of a job', () => {
  const lists = [checklist('a', [{ verificationRequired: false, tasks: ['a1', 'a2'] }])];

  it('lists checklist tasks then one-off tasks', () => {
    expect(taskIdsOf(lists, [oneOff('x1')])).toEqual(['a1', 'a2', 'x1']);
  });

  it('reports completion by taskId, one-off tasks with checklistId null', () => {
    expect(taskResultsOf(lists, [oneOff('x1')], ['a2', 'x1'])).toEqual([
      { taskId: 'a1', checklistId: 'a', label: 'label a1', sourceTaskId: null, completed: false },
      { taskId: 'a2', checklistId: 'a', label: 'label a2', sourceTaskId: null, completed: true },
      { taskId: 'x1', checklistId: null, label: 'Extra x1', sourceTaskId: null, completed: true },
    ]);
  });
});

describe('location and distances', () => {
  it('returns [longitude, latitude]', () => {
    expect(locationPair({ latitude: 48.8566, longitude: 2.3522 })).toEqual([2.3522, 48.8566]);
    expect(locationPair({ latitude: null, longitude: null })).toEqual([null, null]);
  });

  it('measures great-circle distances in whole meters', () => {
    const paris = { latitude: 48.8566, longitude: 2.3522 };
    expect(distanceMeters(paris, paris)).toBe(0);
    // Paris to London is about 343.5 km.
    const london = { latitude: 51.5074, longitude: -0.1278 };
    expect(distanceMeters(paris, london)).toBeGreaterThan(343_000);
    expect(distanceMeters(paris, london)).toBeLessThan(344_500);
    // One thousandth of a degree of latitude is about 111 m.
    expect(distanceMeters(paris, { latitude: 48.8576, longitude: 2.3522 })).toBe(111);
    expect(Number.isInteger(distanceMeters(paris, london))).toBe(true);
  });

  it('has no distance without a reported position', () => {
    expect(distanceFromProperty({ latitude: 1, longitude: 1 })).toBeNull();
    expect(distanceFromProperty({ latitude: null, longitude: null }, { latitude: 1, longitude: 1 })).toBeNull();
    expect(distanceFromProperty({ latitude: 1, longitude: 1 }, { latitude: 1, longitude: 1 })).toBe(0);
  });
});
