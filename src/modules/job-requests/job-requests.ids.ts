import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in job-requests.declaration.ts). */
export const JOB_REQUEST_IDS = idKinds({ jobRequest: 'job', comment: 'cmt' });
