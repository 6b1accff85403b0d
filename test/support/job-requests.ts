import type { JobRequestResponse } from '../../src/modules/job-requests/job-request.response';
import { ApiClient } from './app';

/** Job request fixtures for end-to-end tests. */

export const START = '2030-06-01T10:00:00.000Z';

/** A valid POST /v1/jobRequests body for the property. */
export function validJob(propertyId: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    serviceProviders: [{ email: ANN }, { email: BOB }],
    time: { type: 'fixed', startTime: START, durationInHours: 2 },
    property: { propertyId },
    ...overrides,
  };
}

export async function createJob(api: ApiClient, propertyId: string, overrides: Record<string, unknown> = {}): Promise<JobRequestResponse> {
  const res = await api.post('/v1/jobRequests').send(validJob(propertyId, overrides));
  if (res.status !== 201) throw new Error(`job create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A checklist on the property: `groups` tasks groups of `tasksPerGroup` tasks, the first `verified` requiring a photo. */
export async function createChecklist(
  api: ApiClient,
  propertyId: string,
  {
    groups = 1,
    tasksPerGroup = 2,
    verified = 0,
    title = 'Turnover',
  }: { groups?: number; tasksPerGroup?: number; verified?: number; title?: string } = {},
): Promise<{
  checklistId: string;
  taskGroups: Array<{ taskGroupId: string; title: string; tasks: Array<{ taskId: string; label: string }> }>;
}> {
  const res = await api
    .post('/v1/checklists')
    .send({
      title,
      propertyId,
      taskGroups: Array.from({ length: groups }, (_, g) => ({
        title: `Step ${g + 1}`,
        verificationRequired: g < verified,
        tasks: Array.from({ length: tasksPerGroup }, (_, t) => ({ label: `Task ${g + 1}.${t + 1}` })),
      })),
    })
    .expect(201);
  return res.body;
}

/** The test helpers of a job: `await provider(api, job).accept('ann@cleaners.example')`. */
export function provider(api: ApiClient, jobRequestId: string) {
  const post = (action: string, body?: Record<string, unknown>) => {
    const req = api.post(`/v1/testHelpers/jobRequests/${jobRequestId}/${action}`);
    return body === undefined ? req : req.send(body);
  };
  return {
    accept: (email = ANN, extra: Record<string, unknown> = {}) => post('accept', { email, ...extra }),
    decline: (email = ANN) => post('decline', { email }),
    start: (position: Record<string, unknown> = {}) => post('start', position),
    complete: (completion: Record<string, unknown> = {}) => post('complete', completion),
    cancelByCleaner: () => post('cancelByCleaner'),
    acceptChanges: () => post('acceptChanges'),
    declineChanges: () => post('declineChanges'),
    comment: (message: string, authorEmail = ANN) => post('comments', { message, authorEmail }),
  };
}

export const ANN = 'ann@cleaners.example';
export const BOB = 'bob@cleaners.example';

/** Drives a new job to `status` through the host routes and the test helpers (the app must have TEST_HELPERS_ENABLED=true). */
export async function jobInStatus(api: ApiClient, propertyId: string, status: number, overrides: Record<string, unknown> = {}) {
  const job = await createJob(api, propertyId, overrides);
  const p = provider(api, job.jobRequestId);
  const ok = async (res: PromiseLike<{ status: number; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`driving ${job.jobRequestId} to ${status}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  switch (status) {
    case 1:
      return job;
    case 2:
      return ok(p.accept());
    case 3:
      return ok(api.post(`/v1/jobRequests/${job.jobRequestId}/cancel`));
    case 4:
      await ok(p.decline(ANN));
      return ok(p.decline(BOB));
    case 5:
      await ok(p.accept());
      return ok(p.start());
    case 7:
      await ok(p.accept());
      await ok(p.start());
      return ok(p.complete());
    case 8:
      await ok(p.accept());
      return ok(p.cancelByCleaner());
    case 9:
      await ok(p.accept());
      return ok(api.patch(`/v1/jobRequests/${job.jobRequestId}`).send({ message: `changed ${Date.now()}` }));
    default:
      throw new Error(`no such status ${status}`);
  }
}
