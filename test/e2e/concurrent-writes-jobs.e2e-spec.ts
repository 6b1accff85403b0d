import { jobInStatus } from '../support/job-requests';
import { explainJobRace, JobAct, jobRequest } from '../support/job-races';
import { createProperty } from '../support/properties';
import { KEY_KINDS, useRaceApp } from '../support/races';

/**
 * Conflicting actions at one job request, sent at the same moment round after round: accept, decline,
 * start, complete, cancel by either side, PATCH, accepting or declining changes, comments and payment
 * statuses, in pairs from the statuses where both are allowed. The state machine of job requests is
 * modelled in test/support/job-races.ts, and each round must match one order of the two: the answers
 * (never a 5xx; a refused action a 409 invalidState), the final status and payment status, and the
 * events feed (test/support/races.ts), alike.
 */

describe.each(KEY_KINDS)('Concurrent conflicting writes with a %s key: never a 5xx, state and events as the answers say', (kind) => {
  const races = useRaceApp('jobs', kind);
  const { open } = races;

  describe('job requests', () => {
    /** Each race: the status the job starts in and the two actions sent at once. */
    const RACES: Array<[from: number, a: JobAct, b: JobAct]> = [
      [1, 'accept', 'cancel'],
      [1, 'accept', 'acceptBob'],
      [1, 'accept', 'decline'],
      [1, 'decline', 'declineBob'],
      [1, 'patch', 'cancel'],
      [2, 'start', 'cancel'],
      [2, 'start', 'cancelByCleaner'],
      [2, 'patch', 'cancelByCleaner'],
      [2, 'cancel', 'cancelByCleaner'],
      [9, 'acceptChanges', 'cancel'],
      [9, 'declineChanges', 'cancelByCleaner'],
      [9, 'acceptChanges', 'declineChanges'],
      [9, 'patch', 'acceptChanges'],
      [5, 'complete', 'cancel'],
      [5, 'complete', 'patch'],
      [1, 'hostComment', 'cancel'],
      [2, 'providerComment', 'cancel'],
      [7, 'paySuccessful', 'payFailed'],
      [1, 'paySuccessful', 'cancel'],
    ];
    const JOB_ROUNDS = 6;

    it.each(RACES)('from status %i: %s and %s at once match one order of the two', async (from, actA, actB) => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < JOB_ROUNDS; round++) {
        const job = await jobInStatus(r.api, p.propertyId, from);
        const id: string = job.jobRequestId;
        const [a, b] = await r.together(round, [actA, () => jobRequest(r.api, id, actA)], [actB, () => jobRequest(r.api, id, actB)]);
        const after = (await r.api.get(`/v1/jobRequests/${id}`).expect(200)).body;
        const [{ payment_status: payment }] = await races.db.query(`SELECT payment_status FROM job_requests WHERE id = $1`, [id]);

        const [x, y] = explainJobRace({ status: from, declined: [], payment: null }, [actA, a], [actB, b], {
          status: after.status,
          payment,
        });
        for (const [answer, step] of [
          [a, x],
          [b, y],
        ] as const) {
          r.wrote(
            answer,
            step.events.map((name) => `${name} ${name === 'comment.new' ? '*' : id}`),
          );
          for (const name of step.events.filter((n) => n.startsWith('jobRequest.') && n !== 'jobRequest.paymentStatusChanged')) {
            r.check(answer, name, (shape) => expect(shape.status).toBe(step.state.status));
          }
        }
        if (actA.endsWith('Comment') && a.status === 201) {
          const comments = (await r.api.get(`/v1/jobRequests/${id}/comments`).expect(200)).body.data;
          expect(comments.map((comment: any) => comment.commentId)).toContain(a.body.commentId);
        }
      }
      await r.verifyFeed();
    });
  });
});
