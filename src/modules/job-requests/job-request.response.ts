import type { JobRequestEntity, PaymentStatus } from './job-request.entity';
import type { JobStatus } from './job-status.rules';
import { locationPair, scheduledEndOf, TaskResult, Verification, verificationOf } from './job-snapshot.rules';

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
