import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { AUTH_EXAMPLE_IDS } from '../auth/auth.declaration';
import { BOOKING_EXAMPLES } from '../bookings/bookings.declaration';
import { CHECKLIST_EXAMPLES } from '../checklists/checklists.declaration';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';
import { COMMENT_SHAPE } from './chat/comment.response';
import { COMPLETED_JOB_REQUEST_SHAPE, JOB_REQUEST_SHAPE, PAYMENT_STATUS_SHAPE } from './job-request.response';
import { JOB_REQUEST_IDS } from './job-requests.ids';

const exampleIds = { jobRequestId: 'job_01JDZK7C4D5E6F7G8H9J0K1M2N', commentId: 'cmt_01JDZK7M5N6P7Q8R9S0T1V2W3X' };

/** The example requests' values (the route docs' examples). */
export const JOB_REQUEST_EXAMPLES = {
  ...exampleIds,
  jobBody: {
    serviceProviders: [{ email: 'cleaner@example.com' }],
    time: { type: 'fixed', startTime: '2030-07-15T11:00:00Z', durationInHours: 3 },
    property: { propertyId: PROPERTY_EXAMPLES.propertyId, parking: 'Use spot 4' },
    checklists: [{ checklistId: CHECKLIST_EXAMPLES.checklistId }],
    offeredPrice: 80,
    offeredPriceCurrency: 'EUR',
    message: 'Turnover after the summer stay',
    sourceBookingId: 'airbnb-HM4K2Q',
  },
};

const JOB_REQUEST = {
  jobRequestId: exampleIds.jobRequestId,
  status: 1,
  jobType: 'fixed',
  title: 'Villa Azur',
  note: 'Turnover after the summer stay',
  createdTime: at,
  scheduledStartTime: '2030-07-15T11:00:00.000Z',
  scheduledEndTime: '2030-07-15T14:00:00.000Z',
  actualStartTime: null,
  actualEndTime: null,
  hostId: AUTH_EXAMPLE_IDS.accountId,
  propertyId: PROPERTY_EXAMPLES.propertyId,
  propertyTitle: 'Villa Azur',
  address: { street: null, apt: null, city: null, state: null, zip: null, country: 'FR', AddressArray: [] },
  location: [7.0174, 43.5528],
  checklists: [CHECKLIST_EXAMPLES.checklistId],
  cleanerId: null,
  cleanerEmail: null,
  cleanerName: null,
  partnerBookingId: BOOKING_EXAMPLES.bookingId,
  offeredPrice: 80,
  offeredPriceCurrency: 'EUR',
  verification: {
    completedTaskCount: 0,
    totalTaskCount: 3,
    verificationPictureCount: 0,
    requiredVerificationPictureCount: 1,
    problemCount: 0,
  },
};

export const JOB_REQUESTS = declareModule({
  ids: JOB_REQUEST_IDS,
  tenantTables: [{ table: 'job_requests' }, { table: 'job_request_comments' }],
  exampleIds,
  shapes: [JOB_REQUEST_SHAPE, COMPLETED_JOB_REQUEST_SHAPE, PAYMENT_STATUS_SHAPE, COMMENT_SHAPE],
  examples: {
    JobRequest: JOB_REQUEST,
    PaymentStatus: { jobRequestId: exampleIds.jobRequestId, status: 'successful', description: 'Paid by bank transfer', updatedAt: at },
    Comment: {
      commentId: exampleIds.commentId,
      jobRequestId: exampleIds.jobRequestId,
      authorKind: 'host',
      authorEmail: null,
      message: 'The key box code changed to 4821.',
      languageCode: 'en',
      pictureUrl: null,
      createdAt: at,
      updatedAt: at,
    },
    CompletedJobRequest: {
      ...JOB_REQUEST,
      status: 7,
      tasks: [
        {
          taskId: CHECKLIST_EXAMPLES.taskId,
          checklistId: CHECKLIST_EXAMPLES.checklistId,
          label: 'Empty the dishwasher',
          sourceTaskId: 'kit-1',
          completed: true,
        },
      ],
    },
  },
  events: {
    'jobRequest.created': {
      payload: JOB_REQUEST_SHAPE,
      when: "`POST /v1/jobRequests` succeeded (not on an idempotent replay); written after the `property.update` of the job's property details, when it sent any",
      results: '`[job]`: the snapshot, as in the 201 response',
    },
    'jobRequest.updated': {
      payload: JOB_REQUEST_SHAPE,
      when: '`PATCH /v1/jobRequests/{id}` or `POST …/oneOffTasks` changed something a provider sees (not for equal values, an empty body, property details or `receiveUpdates` alone)',
      results: '`[job]`: after the change',
    },
    'jobRequest.changesPending': {
      payload: JOB_REQUEST_SHAPE,
      when: 'right after `jobRequest.updated`, when that change moved an accepted job (2) to 9',
      results: '`[job]`: status 9, cleaner still assigned',
    },
    'jobRequest.canceled': {
      payload: JOB_REQUEST_SHAPE,
      when: '`POST /v1/jobRequests/{id}/cancel` (1, 2 or 9 → 3)',
      results: '`[job]`: status 3',
    },
    'jobRequest.paymentStatusChanged': {
      payload: PAYMENT_STATUS_SHAPE,
      when: '`PATCH /v1/jobRequests/{id}/paymentStatus` set another status or description',
      results: '`[payment]`: `{jobRequestId, status, description, updatedAt}`, as in the response',
    },
    'jobRequest.accepted': {
      payload: JOB_REQUEST_SHAPE,
      when: 'a provider accepted (1 → 2), or the cleaner accepted the changes (9 → 2)',
      results: '`[job]`',
    },
    'jobRequest.declined': {
      payload: JOB_REQUEST_SHAPE,
      when: 'a provider declined (1 → 1, or 1 → 4 when every invited provider has), or the cleaner declined the changes (9 → 1)',
      results: '`[job]`',
    },
    'jobRequest.started': {
      payload: JOB_REQUEST_SHAPE,
      when: 'the cleaner started (2 → 5)',
      results: '`[job]`: with `actualStartTime` (and `startDistanceMeters` when a position was reported)',
    },
    'jobRequest.completed': {
      payload: COMPLETED_JOB_REQUEST_SHAPE,
      when: 'the cleaner completed (5 → 7)',
      results:
        '`[job + tasks]`: the snapshot plus `tasks`, every task of the job in order, `{taskId, checklistId (null for a one-off task), label, sourceTaskId, completed}`: completion reported by `taskId`',
    },
    'jobRequest.canceledByCleaner': {
      payload: JOB_REQUEST_SHAPE,
      when: 'the cleaner cancelled (2 or 9 → 8)',
      results: '`[job]`',
    },
    'comment.new': {
      payload: COMMENT_SHAPE,
      when: "a provider wrote in the job's chat (the host's own comments write none)",
      results: '`[comment]`: the comment record of `docs/job-requests.md`',
    },
  },
  tags: {
    JobRequests: 'Jobs offered to service providers, their chat and payment status.',
    Comments: "A job's chat.",
    JobRequestTestHelpers:
      "Test mode only (x-test-mode-only): the provider side of a job, simulated for a test key's sandbox in every environment (docs/test-mode.md).",
  },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    jobRequests: typeof JOB_REQUESTS;
  }
}
