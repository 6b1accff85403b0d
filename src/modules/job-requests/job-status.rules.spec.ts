import { InvalidStateError } from '../../platform/errors/domain-error';
import { JOB_ACTIONS, JOB_STATUSES, JobAction, JobStatus, nextStatus, transition } from './job-status.rules';

/**
 * The whole state machine written out once more, by hand, as status × action (- = refused).
 * Spec 3.2: create → 1; cancel when not started → 3; change after acceptance 2 → 9 (cleaner kept);
 * 9 → 2 when the cleaner accepts the changes, 9 → 1 when they decline them. The other moves follow
 * the status meanings (docs/job-requests.md).
 */
const EXPECTED: Record<JobAction, Record<JobStatus, JobStatus | '-'>> = {
  //               1    2    3    4    5    7    8    9
  hostChange: { 1: 1, 2: 9, 3: '-', 4: '-', 5: 5, 7: '-', 8: '-', 9: 9 },
  cancel: { 1: 3, 2: 3, 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: 3 },
  setPaymentStatus: { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 7: 7, 8: 8, 9: 9 },
  comment: { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 7: 7, 8: 8, 9: 9 },
  accept: { 1: 2, 2: '-', 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: '-' },
  decline: { 1: 1, 2: '-', 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: '-' },
  declineLast: { 1: 4, 2: '-', 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: '-' },
  start: { 1: '-', 2: 5, 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: '-' },
  complete: { 1: '-', 2: '-', 3: '-', 4: '-', 5: 7, 7: '-', 8: '-', 9: '-' },
  cancelByCleaner: { 1: '-', 2: 8, 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: 8 },
  acceptChanges: { 1: '-', 2: '-', 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: 2 },
  declineChanges: { 1: '-', 2: '-', 3: '-', 4: '-', 5: '-', 7: '-', 8: '-', 9: 1 },
};

const cases = JOB_ACTIONS.flatMap((action) => JOB_STATUSES.map((status) => [action, status, EXPECTED[action][status]] as const));

describe('job status table', () => {
  it('covers every action and status', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...JOB_ACTIONS].sort());
    expect(cases).toHaveLength(JOB_ACTIONS.length * 8);
  });

  it.each(cases)('%s from %i → %p', (action, status, expected) => {
    if (expected === '-') {
      expect(transition(status, action)).toBeUndefined();
      expect(() => nextStatus('job_1', status, action)).toThrow(InvalidStateError);
    } else {
      expect(transition(status, action)).toBe(expected);
      expect(nextStatus('job_1', status, action)).toBe(expected);
    }
  });

  it('a refusal is a 409 invalidState naming the current status and its meaning', () => {
    try {
      nextStatus('job_1', 7, 'hostChange');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidStateError);
      const e = error as InvalidStateError;
      expect(e.code).toBe('invalidState');
      expect(e.kind).toBe('invalid_state');
      expect(e.message).toBe('Job request job_1 is in status 7 (finished) and cannot be changed');
      expect(e.extras).toEqual({ status: 7, action: 'hostChange' });
    }
  });

  it('no action leads to a status that does not exist', () => {
    for (const action of JOB_ACTIONS)
      for (const status of JOB_STATUSES) expect([undefined, ...JOB_STATUSES]).toContain(transition(status, action));
  });
});
