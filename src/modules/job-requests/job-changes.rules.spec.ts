import { ValidationError } from '../../platform/errors/domain-error';
import type { ProviderInvite } from './job-request.entity';
import {
  answerInvite,
  assembleChecklists,
  assertChecklistsOfProperty,
  assertCompletedTasks,
  assertDistinctChecklistIds,
  checklistIdsToCopy,
  coordinatesOf,
  defaultProviderName,
  everyProviderDeclined,
  findInvite,
  HostEditable,
  hostEditableChanged,
  invitedProvider,
  inviteProviders,
  mergeOneOffTasks,
  mergeTime,
  providerIdOf,
} from './job-changes.rules';
import { CopiedChecklist, JobTime } from './job-snapshot.rules';

const pointers = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return ((error as ValidationError).extras.errors as Array<{ pointer: string }>).map((e) => e.pointer);
  }
  throw new Error('expected a ValidationError');
};

describe('service provider invitations', () => {
  it('invites every email once, comparing case-insensitively', () => {
    expect(inviteProviders(['a@x.io', 'b@x.io'])).toEqual([
      { email: 'a@x.io', answer: 'invited' },
      { email: 'b@x.io', answer: 'invited' },
    ]);
    expect(pointers(() => inviteProviders(['a@x.io', 'b@x.io', 'A@X.io']))).toEqual(['#/serviceProviders/2/email']);
  });

  it('keeps the answers of providers still on the list', () => {
    const previous: ProviderInvite[] = [
      { email: 'a@x.io', answer: 'declined' },
      { email: 'b@x.io', answer: 'invited' },
    ];
    expect(inviteProviders(['c@x.io', 'A@x.io'], previous)).toEqual([
      { email: 'c@x.io', answer: 'invited' },
      { email: 'A@x.io', answer: 'declined' },
    ]);
  });

  it('finds, answers and counts declines', () => {
    let invites = inviteProviders(['a@x.io', 'b@x.io']);
    expect(findInvite(invites, 'B@x.io')?.email).toBe('b@x.io');
    expect(findInvite(invites, 'z@x.io')).toBeUndefined();
    invites = answerInvite(invites, 'A@X.IO', 'declined');
    expect(everyProviderDeclined(invites)).toBe(false);
    invites = answerInvite(invites, 'b@x.io', 'declined');
    expect(everyProviderDeclined(invites)).toBe(true);
    expect(everyProviderDeclined([])).toBe(false);
  });

  it('gives a provider one id per account, whatever the case of the email', () => {
    expect(providerIdOf('acct_1', 'Ann@x.io')).toBe(providerIdOf('acct_1', 'ann@x.io'));
    expect(providerIdOf('acct_1', 'ann@x.io')).not.toBe(providerIdOf('acct_2', 'ann@x.io'));
    expect(providerIdOf('acct_1', 'ann@x.io')).toMatch(/^cln_[0-9a-f]{26}$/);
    expect(defaultProviderName('ann.smith@x.io')).toBe('ann.smith');
  });
});

const copy = (id: string, propertyId = 'prop_1'): CopiedChecklist => ({ checklistId: id, propertyId, title: id, taskGroups: [] });

describe('checklists of a job', () => {
  it('refuses repeated ids at each repeat', () => {
    expect(pointers(() => assertDistinctChecklistIds(['a', 'b', 'a', 'a']))).toEqual([
      '#/checklists/2/checklistId',
      '#/checklists/3/checklistId',
    ]);
    expect(() => assertDistinctChecklistIds(['a', 'b'])).not.toThrow();
  });

  it('refuses checklists of another property', () => {
    const copies = [copy('a'), copy('b', 'prop_2')];
    expect(pointers(() => assertChecklistsOfProperty(copies, 'prop_1', (c) => copies.indexOf(c)))).toEqual(['#/checklists/1/checklistId']);
  });

  it('keeps the copies a job holds, copies only new ids and drops the others', () => {
    const held = [{ ...copy('a'), title: 'as attached' }, copy('b')];
    expect(checklistIdsToCopy(held, ['c', 'a'])).toEqual(['c']);
    const result = assembleChecklists(held, ['c', 'a'], [copy('c')]);
    expect(result.map((c) => c.checklistId)).toEqual(['c', 'a']);
    expect(result[1].title).toBe('as attached');
  });
});

describe('one-off tasks', () => {
  let n = 0;
  const mint = () => `task_${++n}`;

  it('adds new titles and updates a task with the same title in place', () => {
    const first = mergeOneOffTasks([], [{ title: 'Water plants', note: 'twice' }], mint);
    expect(first).toEqual([{ taskId: expect.any(String), title: 'Water plants', note: 'twice', sourcePictureUrl: null }]);
    const second = mergeOneOffTasks(
      first,
      [
        { title: 'Water plants', note: 'once', sourcePictureUrl: 'https://x.io/p.png' },
        { title: 'Feed cat', note: 'wet food' },
      ],
      mint,
    );
    expect(second).toEqual([
      { taskId: first[0].taskId, title: 'Water plants', note: 'once', sourcePictureUrl: 'https://x.io/p.png' },
      { taskId: expect.any(String), title: 'Feed cat', note: 'wet food', sourcePictureUrl: null },
    ]);
    expect(first[0].note).toBe('twice'); // the input list is not changed
  });

  it('matches titles exactly', () => {
    const first = mergeOneOffTasks([], [{ title: 'Feed cat', note: 'a' }], mint);
    expect(mergeOneOffTasks(first, [{ title: 'feed cat', note: 'b' }], mint)).toHaveLength(2);
  });

  it('refuses a title repeated in one request, and more than 100 tasks', () => {
    expect(
      pointers(() =>
        mergeOneOffTasks(
          [],
          [
            { title: 'A', note: 'a' },
            { title: 'A', note: 'b' },
          ],
          mint,
        ),
      ),
    ).toEqual(['#/tasks/1/title']);
    const many = Array.from({ length: 100 }, (_, i) => ({ title: `T${i}`, note: 'n' }));
    const full = mergeOneOffTasks([], many, mint);
    expect(mergeOneOffTasks(full, [{ title: 'T5', note: 'updated' }], mint)).toHaveLength(100);
    expect(pointers(() => mergeOneOffTasks(full, [{ title: 'T100', note: 'n' }], mint))).toEqual(['#/tasks']);
  });
});

const time: JobTime = {
  type: 'fixed',
  startTime: new Date('2026-03-01T10:00:00Z'),
  endTime: null,
  durationInHours: 2,
  durationInMinutes: null,
};

describe('mergeTime', () => {
  it('applies only the fields sent; null clears endTime and durations', () => {
    expect(mergeTime(time, {})).toEqual(time);
    expect(mergeTime(time, { type: 'flexible' })).toEqual({ ...time, type: 'flexible' });
    expect(mergeTime(time, { durationInHours: null, durationInMinutes: 30 })).toEqual({
      ...time,
      durationInHours: null,
      durationInMinutes: 30,
    });
    const end = new Date('2026-03-01T13:00:00Z');
    expect(mergeTime({ ...time, endTime: end }, { endTime: null }).endTime).toBeNull();
  });

  it('keeps endTime after startTime across the merge', () => {
    const end = new Date('2026-03-01T13:00:00Z');
    expect(pointers(() => mergeTime({ ...time, endTime: end }, { startTime: new Date('2026-03-01T14:00:00Z') }))).toEqual([
      '#/time/endTime',
    ]);
  });
});

describe('hostEditableChanged', () => {
  const base: HostEditable = {
    serviceProviders: [{ email: 'a@x.io', answer: 'invited' }],
    time,
    checklists: [copy('a')],
    oneOffTasks: [],
    offeredPrice: 10,
    offeredPriceCurrency: 'EUR',
    message: 'hello',
  };

  it('is false for the same values, true for any difference', () => {
    expect(hostEditableChanged(base, { ...base, serviceProviders: [{ email: 'A@x.io', answer: 'declined' }] })).toBe(false);
    expect(hostEditableChanged(base, { ...base, time: { ...time } })).toBe(false);
    expect(hostEditableChanged(base, { ...base, offeredPrice: 11 })).toBe(true);
    expect(hostEditableChanged(base, { ...base, message: null })).toBe(true);
    expect(hostEditableChanged(base, { ...base, checklists: [] })).toBe(true);
    expect(hostEditableChanged(base, { ...base, time: { ...time, durationInHours: 3 } })).toBe(true);
    expect(
      hostEditableChanged(base, { ...base, serviceProviders: [...base.serviceProviders, { email: 'b@x.io', answer: 'invited' }] }),
    ).toBe(true);
    expect(hostEditableChanged(base, { ...base, oneOffTasks: [{ taskId: 't', title: 'x', note: 'y', sourcePictureUrl: null }] })).toBe(
      true,
    );
  });
});

describe('provider reports', () => {
  it('an invited provider is found case-insensitively; anyone else is a 400 at the pointer', () => {
    const job = { id: 'job_1', serviceProviders: inviteProviders(['ann@x.io']) };
    expect(invitedProvider(job, 'ANN@x.io')).toEqual({ email: 'ann@x.io', answer: 'invited' });
    expect(pointers(() => invitedProvider(job, 'eve@x.io'))).toEqual(['#/email']);
    expect(pointers(() => invitedProvider(job, 'eve@x.io', '#/authorEmail'))).toEqual(['#/authorEmail']);
  });

  it('takes both coordinates or neither', () => {
    expect(coordinatesOf({})).toBeUndefined();
    expect(coordinatesOf({ latitude: null, longitude: null })).toBeUndefined();
    expect(coordinatesOf({ latitude: 0, longitude: 0 })).toEqual({ latitude: 0, longitude: 0 });
    expect(pointers(() => coordinatesOf({ latitude: 1 }))).toEqual(['#/longitude']);
    expect(pointers(() => coordinatesOf({ longitude: 1 }))).toEqual(['#/latitude']);
  });

  it('completed tasks must be the job’s, each once', () => {
    expect(() => assertCompletedTasks('job_1', ['a', 'b'], ['b', 'a'])).not.toThrow();
    expect(() => assertCompletedTasks('job_1', ['a'], [])).not.toThrow();
    expect(pointers(() => assertCompletedTasks('job_1', ['a', 'b'], ['a', 'x', 'a']))).toEqual([
      '#/completedTaskIds/1',
      '#/completedTaskIds/2',
    ]);
  });
});
