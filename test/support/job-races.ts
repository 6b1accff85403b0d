import type { Test } from 'supertest';
import { ApiClient } from './app';
import { ANN, BOB } from './job-requests';
import { Answer, expectAnswer, INVALID_STATE } from './races';

/**
 * The job request state machine of docs/job-requests.md, written out again for the races of
 * test/e2e/concurrent-writes-jobs.e2e-spec.ts: each action, the statuses it is allowed from, where it leads
 * and the events it writes. Two actions sent at once must have answered, and left the job, as one
 * order of the two would have.
 */

export type JobAct =
  | 'accept'
  | 'acceptBob'
  | 'decline'
  | 'declineBob'
  | 'start'
  | 'complete'
  | 'cancel'
  | 'cancelByCleaner'
  | 'acceptChanges'
  | 'declineChanges'
  | 'patch'
  | 'hostComment'
  | 'providerComment'
  | 'paySuccessful'
  | 'payFailed';

export interface JobState {
  status: number;
  /** Invited providers who declined. */
  declined: string[];
  payment: string | null;
}

export interface Step {
  act: JobAct;
  /** 0 for the first of the two, 1 for the second. */
  order: number;
  ok: boolean;
  /** The state after the action (the same as before when refused). */
  state: JobState;
  events: string[];
}

const SUCCESS: Record<JobAct, number> = {
  accept: 200,
  acceptBob: 200,
  decline: 200,
  declineBob: 200,
  start: 200,
  complete: 200,
  cancel: 200,
  cancelByCleaner: 200,
  acceptChanges: 200,
  declineChanges: 200,
  patch: 200,
  hostComment: 201,
  providerComment: 201,
  paySuccessful: 200,
  payFailed: 200,
};
/** The actions whose answer is the job snapshot (the others answer a comment or the payment record). */
const JOB_SHAPED = new Set<JobAct>([
  'accept',
  'acceptBob',
  'decline',
  'declineBob',
  'start',
  'complete',
  'cancel',
  'cancelByCleaner',
  'acceptChanges',
  'declineChanges',
  'patch',
]);

function step(state: JobState, act: JobAct): { ok: boolean; state: JobState; events: string[] } {
  const refused = { ok: false, state, events: [] };
  const to = (status: number, events: string[], changes: Partial<JobState> = {}) => ({
    ok: true,
    state: { ...state, ...changes, status },
    events,
  });
  const s = state.status;
  switch (act) {
    case 'accept':
    case 'acceptBob': {
      const email = act === 'accept' ? ANN : BOB;
      return s === 1 && !state.declined.includes(email) ? to(2, ['jobRequest.accepted']) : refused;
    }
    case 'decline':
    case 'declineBob': {
      const email = act === 'decline' ? ANN : BOB;
      if (s !== 1 || state.declined.includes(email)) return refused;
      const declined = [...state.declined, email];
      return to(declined.length === 2 ? 4 : 1, ['jobRequest.declined'], { declined });
    }
    case 'start':
      return s === 2 ? to(5, ['jobRequest.started']) : refused;
    case 'complete':
      return s === 5 ? to(7, ['jobRequest.completed']) : refused;
    case 'cancel':
      return [1, 2, 9].includes(s) ? to(3, ['jobRequest.canceled']) : refused;
    case 'cancelByCleaner':
      return [2, 9].includes(s) ? to(8, ['jobRequest.canceledByCleaner']) : refused;
    case 'acceptChanges':
      return s === 9 ? to(2, ['jobRequest.accepted']) : refused;
    case 'declineChanges':
      return s === 9 ? to(1, ['jobRequest.declined']) : refused;
    case 'patch':
      if (s === 2) return to(9, ['jobRequest.updated', 'jobRequest.changesPending']);
      return [1, 5, 9].includes(s) ? to(s, ['jobRequest.updated']) : refused;
    case 'hostComment':
      return to(s, []);
    case 'providerComment':
      return to(s, ['comment.new']);
    case 'paySuccessful':
    case 'payFailed': {
      const payment = act === 'paySuccessful' ? 'successful' : 'failed';
      return to(s, state.payment === payment ? [] : ['jobRequest.paymentStatusChanged'], { payment });
    }
  }
}

/**
 * The steps of two actions sent at once (`[A's step, B's step]`) in the order that explains their answers
 * (a 2xx with the status after the action, or a 409 invalidState for a move the table refuses) and what
 * the job reads as afterwards; fails when neither order does.
 */
export function explainJobRace(
  start: JobState,
  [actA, a]: [JobAct, Answer],
  [actB, b]: [JobAct, Answer],
  after: Pick<JobState, 'status' | 'payment'>,
): [Step, Step] {
  for (const answer of [a, b]) if (answer.status >= 500) expectAnswer(answer, 200);
  const orders = [run(start, [actA, actB]), run(start, [actB, actA]).reverse() as [Step, Step]];
  const fits = orders.filter(([x, y]) => {
    const last = y.order > x.order ? y : x;
    return fitsAnswer(x, a) && fitsAnswer(y, b) && last.state.status === after.status && last.state.payment === after.payment;
  });
  if (fits.length === 0) {
    throw new Error(
      `no order of ${actA} and ${actB} from ${start.status} explains ${a.status} ${JSON.stringify(a.body)} / ` +
        `${b.status} ${JSON.stringify(b.body)}, ending in status ${after.status}, payment ${after.payment}`,
    );
  }
  const [x, y] = fits[0];
  expectAnswer(a, x.ok ? SUCCESS[actA] : INVALID_STATE);
  expectAnswer(b, y.ok ? SUCCESS[actB] : INVALID_STATE);
  return [x, y];
}

/** A job answer carries the status after the action; a refused action is a 409. */
function fitsAnswer(step: Step, answer: Answer): boolean {
  if (!step.ok) return answer.status === 409;
  return answer.status === SUCCESS[step.act] && (!JOB_SHAPED.has(step.act) || answer.body.status === step.state.status);
}

/** The two actions applied in this order. */
function run(start: JobState, acts: [JobAct, JobAct]): [Step, Step] {
  const first = { act: acts[0], order: 0, ...step(start, acts[0]) };
  const second = { act: acts[1], order: 1, ...step(first.state, acts[1]) };
  return [first, second];
}

let patchSeq = 0;
/** The request of an action on the job (the host's routes, or the provider's test helpers). */
export function jobRequest(api: ApiClient, id: string, act: JobAct): Test {
  const helper = (action: string, body?: Record<string, unknown>) => {
    const req = api.post(`/v1/testHelpers/jobRequests/${id}/${action}`);
    return body === undefined ? req : req.send(body);
  };
  switch (act) {
    case 'accept':
      return helper('accept', { email: ANN });
    case 'acceptBob':
      return helper('accept', { email: BOB });
    case 'decline':
      return helper('decline', { email: ANN });
    case 'declineBob':
      return helper('decline', { email: BOB });
    case 'start':
    case 'complete':
    case 'cancelByCleaner':
    case 'acceptChanges':
    case 'declineChanges':
      return helper(act);
    case 'cancel':
      return api.post(`/v1/jobRequests/${id}/cancel`);
    case 'patch':
      return api.patch(`/v1/jobRequests/${id}`).send({ message: `Changed ${++patchSeq}` });
    case 'hostComment':
      return api.post(`/v1/jobRequests/${id}/comments`).send({ message: 'Stain on the sofa' });
    case 'providerComment':
      return helper('comments', { message: 'On my way', authorEmail: ANN });
    case 'paySuccessful':
      return api.patch(`/v1/jobRequests/${id}/paymentStatus`).send({ status: 'successful' });
    case 'payFailed':
      return api.patch(`/v1/jobRequests/${id}/paymentStatus`).send({ status: 'failed' });
  }
}
