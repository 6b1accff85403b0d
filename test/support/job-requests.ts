import type { JobRequestResponse } from '../../src/modules/job-requests/job-request.response';
import { ApiClient } from './app';

/** Job request fixtures for end-to-end tests. */

export const START = '2030-06-01T10:00:00.000Z';

/** A valid POST /v1/jobRequests body for the property. */
export function validJob(propertyId: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    serviceProviders: [{ email: 'ann@cleaners.example' }, { email: 'bob@cleaners.example' }],
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
