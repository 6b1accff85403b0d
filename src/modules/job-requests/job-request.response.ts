import type { JobRequestEntity, PaymentStatus } from './job-request.entity';
import type { JobStatus } from './job-status.rules';
import {
  arrayOf,
  bool,
  dateTime,
  described,
  enumOf,
  FieldSchemas,
  id,
  int,
  optional,
  orNull,
  shapeOf,
  str,
} from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { PAYMENT_STATUSES } from './host/dto/payment-status.dto';
import { JOB_TIME_TYPES } from '../reminders/reminder.rules';
import {
  locationPair,
  PROBLEM_STATUSES,
  ProblemResponse,
  scheduledEndOf,
  TaskResult,
  Verification,
  verificationOf,
} from './job-snapshot.rules';
import { JOB_STATUS_MEANING, JOB_STATUSES } from './job-status.rules';
import { BOOKING_IDS } from '../bookings/bookings.ids';
import { CHECKLIST_IDS } from '../checklists/checklists.ids';
import { JOB_REQUEST_IDS } from './job-requests.ids';
import { PROPERTY_IDS } from '../properties/properties.ids';

/** Spec 2.6's address object. The service knows the derived address text and the country, no street-level parts. */
export interface JobAddress {
  street: string | null;
  apt: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  AddressArray: string[];
}

/**
 * The job read shape (spec 2.6), in the spec's field order: keyed by jobRequestId, never another id
 * field of the job. Unset values are null; partnerBookingId, verification.problems and the
 * distances are left out when they do not apply, as the spec says.
 */
export interface JobRequestResponse {
  jobRequestId: string;
  status: JobStatus;
  jobType: string;
  title: string;
  note: string | null;
  createdTime: string;
  scheduledStartTime: string;
  scheduledEndTime: string | null;
  actualStartTime: string | null;
  actualEndTime: string | null;
  hostId: string;
  propertyId: string;
  propertyTitle: string;
  address: JobAddress;
  location: [number | null, number | null];
  checklists: string[];
  cleanerId: string | null;
  cleanerEmail: string | null;
  cleanerName: string | null;
  partnerBookingId?: string;
  offeredPrice: number | null;
  offeredPriceCurrency: string | null;
  verification: Verification;
}

/** The columns the read shape needs: everything but the checklist copies and one-off task bodies. */
export type JobRequestView = Omit<JobRequestEntity, 'checklists' | 'oneOffTasks' | 'serviceProviders'>;

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);

/** The one mapper: API responses and every jobRequest.* event use it. */
export function toJobRequestResponse(job: JobRequestView): JobRequestResponse {
  return {
    jobRequestId: job.id,
    status: job.status,
    jobType: job.timeType,
    title: job.propertyTitle,
    note: job.message,
    createdTime: new Date(job.createdAt).toISOString(),
    scheduledStartTime: new Date(job.startTime).toISOString(),
    scheduledEndTime: iso(
      scheduledEndOf({
        type: job.timeType,
        startTime: new Date(job.startTime),
        endTime: job.endTime ? new Date(job.endTime) : null,
        durationInHours: job.durationInHours,
        durationInMinutes: job.durationInMinutes,
      }),
    ),
    actualStartTime: iso(job.actualStartTime),
    actualEndTime: iso(job.actualEndTime),
    hostId: job.accountId,
    propertyId: job.propertyId,
    propertyTitle: job.propertyTitle,
    address: {
      street: null,
      apt: null,
      city: null,
      state: null,
      zip: null,
      country: job.propertyCountryCode,
      AddressArray: job.propertyAddress ? [job.propertyAddress] : [],
    },
    location: locationPair({ latitude: job.propertyLatitude, longitude: job.propertyLongitude }),
    checklists: [...job.checklistIds],
    cleanerId: job.cleanerId,
    cleanerEmail: job.cleanerEmail,
    cleanerName: job.cleanerName,
    // Only when the job is linked to a booking, in the spec's position.
    ...(job.partnerBookingId !== null ? { partnerBookingId: job.partnerBookingId } : {}),
    offeredPrice: job.offeredPrice,
    offeredPriceCurrency: job.offeredPriceCurrency,
    verification: verificationOf({
      totalTaskCount: job.totalTaskCount,
      requiredVerificationPictureCount: job.requiredVerificationPictureCount,
      completedTaskIds: job.completedTaskIds,
      verificationPictureCount: job.verificationPictureCount,
      problems: job.problems,
      startDistanceMeters: job.startDistanceMeters,
      endDistanceMeters: job.endDistanceMeters,
    }),
  };
}

/** jobRequest.completed results: the snapshot plus every task of the job with its completion, by taskId. */
export type CompletedJobResponse = JobRequestResponse & { tasks: TaskResult[] };

/** PATCH …/paymentStatus response and jobRequest.paymentStatusChanged results. */
export interface PaymentStatusResponse {
  jobRequestId: string;
  status: PaymentStatus;
  description: string | null;
  updatedAt: string;
}

export function toPaymentStatusResponse(job: Pick<JobRequestEntity, 'id' | 'paymentStatus' | 'paymentDescription' | 'paymentUpdatedAt'>) {
  return {
    jobRequestId: job.id,
    status: job.paymentStatus as PaymentStatus,
    description: job.paymentDescription,
    updatedAt: new Date(job.paymentUpdatedAt as Date).toISOString(),
  } satisfies PaymentStatusResponse;
}

const JOB_FIELDS: FieldSchemas<JobRequestResponse> = {
  jobRequestId: id(JOB_REQUEST_IDS.jobRequest),
  status: enumOf(JOB_STATUSES, JOB_STATUSES.map((status) => `${status} ${JOB_STATUS_MEANING[status]}`).join(', ')),
  jobType: enumOf(JOB_TIME_TYPES),
  title: str,
  note: orNull(str),
  createdTime: dateTime,
  scheduledStartTime: dateTime,
  scheduledEndTime: orNull(dateTime),
  actualStartTime: orNull(dateTime),
  actualEndTime: orNull(dateTime),
  hostId: str,
  propertyId: id(PROPERTY_IDS.property),
  propertyTitle: str,
  address: shapeOf<JobAddress>('The property address; the service derives one line (AddressArray) and the country.', {
    street: orNull(str),
    apt: orNull(str),
    city: orNull(str),
    state: orNull(str),
    zip: orNull(str),
    country: orNull(str),
    AddressArray: arrayOf(str),
  }),
  location: {
    type: 'array',
    description: '[longitude, latitude] of the property',
    prefixItems: [orNull({ type: 'number' }), orNull({ type: 'number' })],
    // Spectral's array-items wants items beside a tuple's prefixItems; maxItems already stops a third item.
    items: orNull({ type: 'number' }),
    minItems: 2,
    maxItems: 2,
  },
  checklists: described(arrayOf(id(CHECKLIST_IDS.checklist)), 'ids of the checklists copied onto the job'),
  cleanerId: orNull(str),
  cleanerEmail: orNull(str),
  cleanerName: orNull(str),
  partnerBookingId: optional(described(id(BOOKING_IDS.booking), 'the booking the job was created for (sourceBookingId), when linked')),
  offeredPrice: orNull({ type: 'number', minimum: 0 }),
  offeredPriceCurrency: orNull(str),
  verification: shapeOf<Verification>(
    'Progress of the job (spec 2.6); problems only when the cleaner reported any, distances only when a position was recorded.',
    {
      completedTaskCount: int,
      totalTaskCount: int,
      verificationPictureCount: int,
      requiredVerificationPictureCount: int,
      problemCount: int,
      problems: optional(
        arrayOf(
          shapeOf<ProblemResponse>('A problem the cleaner reported (without its description and photos).', {
            severity: { type: 'integer', minimum: 0, maximum: 5 },
            status: enumOf(PROBLEM_STATUSES),
            step: str,
            checklist: str,
            reportedAt: dateTime,
          }),
        ),
      ),
      startDistanceMeters: optional(int),
      endDistanceMeters: optional(int),
    },
  ),
};

export const JOB_REQUEST_SHAPE = readShape<JobRequestResponse>(
  'JobRequest',
  'A job request (spec 2.6): keyed by jobRequestId; the cleaner fields are null until a cleaner accepts.',
  JOB_FIELDS,
);

export const COMPLETED_JOB_REQUEST_SHAPE = readShape<CompletedJobResponse>(
  'CompletedJobRequest',
  'A finished job (jobRequest.completed): the job read shape plus every task of the job and whether it was completed.',
  {
    ...JOB_FIELDS,
    tasks: arrayOf(
      shapeOf<TaskResult>('A task of the job, by taskId.', {
        taskId: id(CHECKLIST_IDS.task),
        checklistId: described(orNull(str), 'null for a one-off task'),
        label: str,
        sourceTaskId: orNull(str),
        completed: bool,
      }),
    ),
  },
);

export const PAYMENT_STATUS_SHAPE = readShape<PaymentStatusResponse>('PaymentStatus', "A job's payment status.", {
  jobRequestId: id(JOB_REQUEST_IDS.jobRequest),
  status: enumOf(PAYMENT_STATUSES),
  description: orNull(str),
  updatedAt: dateTime,
});
