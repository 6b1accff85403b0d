import { InvalidStateError } from '../../platform/errors/domain-error';

/**
 * The job request state machine (spec 3.2) as one table: for every action, the statuses it may
 * start from and the status it leads to. Pure; the services ask it before every change, and the
 * table in docs/job-requests.md is this one.
 */

export const JOB_STATUS = {
  /** sent to cleaners; none has accepted yet */
  pending: 1,
  /** accepted by a cleaner */
  accepted: 2,
  /** cancelled by the host */
  canceled: 3,
  /** declined by every invited cleaner */
  declined: 4,
  /** in progress, the cleaner has started */
  inProgress: 5,
  /** finished */
  finished: 7,
  /** cancelled by the cleaner */
  canceledByCleaner: 8,
  /** waiting for the cleaner to accept changes made after acceptance */
  changesPending: 9,
} as const;

export type JobStatus = (typeof JOB_STATUS)[keyof typeof JOB_STATUS];

/** Every status, in number order (6 does not exist). */
export const JOB_STATUSES: readonly JobStatus[] = [1, 2, 3, 4, 5, 7, 8, 9];

export const JOB_STATUS_MEANING: Record<JobStatus, string> = {
  1: 'sent to cleaners, none has accepted yet',
  2: 'accepted by a cleaner',
  3: 'cancelled by the host',
  4: 'declined by every invited cleaner',
  5: 'in progress',
  7: 'finished',
  8: 'cancelled by the cleaner',
  9: 'waiting for the cleaner to accept changes',
};

export function isJobStatus(value: unknown): value is JobStatus {
  return typeof value === 'number' && (JOB_STATUSES as readonly number[]).includes(value);
}

/**
 * What can happen to a job. Host actions come from the API; provider actions from the providers'
 * apps (in this service: the test helpers). `decline` is one provider declining while others may
 * still answer; `declineLast` is the decline that leaves no invited provider who has not declined.
 */
export type JobAction =
  | 'hostChange'
  | 'cancel'
  | 'setPaymentStatus'
  | 'comment'
  | 'accept'
  | 'decline'
  | 'declineLast'
  | 'start'
  | 'complete'
  | 'cancelByCleaner'
  | 'acceptChanges'
  | 'declineChanges';

export const JOB_ACTIONS: readonly JobAction[] = [
  'hostChange',
  'cancel',
  'setPaymentStatus',
  'comment',
  'accept',
  'decline',
  'declineLast',
  'start',
  'complete',
  'cancelByCleaner',
  'acceptChanges',
  'declineChanges',
];

/** Statuses whose job will never change again (spec: finished or cancelled; 4 is a dead end too). */
export const CLOSED_STATUSES: readonly JobStatus[] = [3, 4, 7, 8];

/** A property cannot be deleted while it has a job in one of these statuses. */
export const ACTIVE_STATUSES: readonly JobStatus[] = [1, 2, 5, 9];

const EVERY_STATUS = Object.fromEntries(JOB_STATUSES.map((s) => [s, s])) as Record<JobStatus, JobStatus>;

/** action → (from status → to status). A status missing from an action's row refuses it (409 invalidState). */
export const JOB_TRANSITIONS: Readonly<Record<JobAction, Readonly<Partial<Record<JobStatus, JobStatus>>>>> = {
  // PATCH and oneOffTasks: a change after acceptance waits for the cleaner (2 → 9, cleaner kept).
  hostChange: { 1: 1, 2: 9, 5: 5, 9: 9 },
  // A job that has not started (spec 3.2).
  cancel: { 1: 3, 2: 3, 9: 3 },
  // Payment records money, which moves after a job is finished or cancelled too; chat stays open.
  setPaymentStatus: EVERY_STATUS,
  comment: EVERY_STATUS,
  accept: { 1: 2 },
  decline: { 1: 1 },
  declineLast: { 1: 4 },
  start: { 2: 5 },
  complete: { 5: 7 },
  cancelByCleaner: { 2: 8, 9: 8 },
  acceptChanges: { 9: 2 },
  declineChanges: { 9: 1 },
};

const ACTION_WORDING: Record<JobAction, string> = {
  hostChange: 'be changed',
  cancel: 'be cancelled',
  setPaymentStatus: 'take a payment status',
  comment: 'take comments',
  accept: 'be accepted',
  decline: 'be declined',
  declineLast: 'be declined',
  start: 'be started',
  complete: 'be completed',
  cancelByCleaner: 'be cancelled by the cleaner',
  acceptChanges: 'have its changes accepted',
  declineChanges: 'have its changes declined',
};

/** The status after `action`, or undefined when the table refuses it. */
export function transition(status: JobStatus, action: JobAction): JobStatus | undefined {
  return JOB_TRANSITIONS[action][status];
}

/** The status after `action`; a refused move is a 409 invalidState naming the current status. */
export function nextStatus(jobRequestId: string, status: JobStatus, action: JobAction): JobStatus {
  const next = transition(status, action);
  if (next === undefined) {
    throw new InvalidStateError(
      `Job request ${jobRequestId} is in status ${status} (${JOB_STATUS_MEANING[status]}) and cannot ${ACTION_WORDING[action]}`,
      { status, action },
    );
  }
  return next;
}
