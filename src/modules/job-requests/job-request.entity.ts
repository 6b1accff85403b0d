import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';
import type { JobStatus } from './job-status.rules';
import type { JobTimeType } from '../reminders/reminder.rules';
import type { CopiedChecklist, OneOffTask, StoredProblem } from './job-snapshot.rules';

/** An invited provider and their answer (the read shape never lists them; the test helpers drive the answers). */
export interface ProviderInvite {
  email: string;
  answer: 'invited' | 'accepted' | 'declined';
}

export type PaymentStatus = 'pending' | 'failed' | 'successful';

/**
 * A job request as stored. The job holds its own snapshot of the property (title, address,
 * location) and deep copies of its checklists, so deleting or editing either never changes it.
 */
@Entity('job_requests')
export class JobRequestEntity extends AccountOwnedTimestampedEntity {
  @Column({ type: 'smallint' }) status: JobStatus;

  // The property as it was when the job was created (no foreign key: a job outlives its property).
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ name: 'property_title', type: 'text' }) propertyTitle: string;
  @Column({ name: 'property_address', type: 'text', nullable: true }) propertyAddress: string | null;
  @Column({ name: 'property_country_code', type: 'text', nullable: true }) propertyCountryCode: string | null;
  @Column({ name: 'property_latitude', type: 'double precision', nullable: true }) propertyLatitude: number | null;
  @Column({ name: 'property_longitude', type: 'double precision', nullable: true }) propertyLongitude: number | null;

  // The job time object as sent; scheduledEndTime is derived (scheduledEndOf).
  @Column({ name: 'time_type', type: 'text' }) timeType: JobTimeType;
  @Column({ name: 'scheduled_start_time', type: 'timestamptz' }) startTime: Date;
  @Column({ name: 'end_time', type: 'timestamptz', nullable: true }) endTime: Date | null;
  @Column({ name: 'duration_hours', type: 'integer', nullable: true }) durationInHours: number | null;
  @Column({ name: 'duration_minutes', type: 'integer', nullable: true }) durationInMinutes: number | null;

  @Column({ name: 'service_providers', type: 'jsonb' }) serviceProviders: ProviderInvite[];
  @Column({ name: 'checklist_ids', type: 'text', array: true }) checklistIds: string[];
  /** Deep copies taken when each checklist was attached; only the writes that need them read them. */
  @Column({ type: 'jsonb' }) checklists: CopiedChecklist[];
  @Column({ name: 'one_off_tasks', type: 'jsonb' }) oneOffTasks: OneOffTask[];
  /** planTasks() of the copies and one-off tasks, kept current by every write that changes them. */
  @Column({ name: 'total_task_count', type: 'integer' }) totalTaskCount: number;
  @Column({ name: 'required_picture_count', type: 'integer' }) requiredVerificationPictureCount: number;

  @Column({ name: 'offered_price', type: 'double precision', nullable: true }) offeredPrice: number | null;
  @Column({ name: 'offered_price_currency', type: 'text', nullable: true }) offeredPriceCurrency: string | null;
  @Column({ type: 'text', nullable: true }) message: string | null;
  @Column({ name: 'source_booking_id', type: 'text', nullable: true }) sourceBookingId: string | null;
  @Column({ name: 'partner_booking_id', type: 'text', nullable: true }) partnerBookingId: string | null;
  @Column({ name: 'receive_updates', type: 'boolean', nullable: true }) receiveUpdates: boolean | null;

  @Column({ name: 'cleaner_id', type: 'text', nullable: true }) cleanerId: string | null;
  @Column({ name: 'cleaner_email', type: 'text', nullable: true }) cleanerEmail: string | null;
  @Column({ name: 'cleaner_name', type: 'text', nullable: true }) cleanerName: string | null;
  @Column({ name: 'actual_start_time', type: 'timestamptz', nullable: true }) actualStartTime: Date | null;
  @Column({ name: 'actual_end_time', type: 'timestamptz', nullable: true }) actualEndTime: Date | null;
  // Distances only: the cleaner's coordinates are never stored.
  @Column({ name: 'start_distance_meters', type: 'integer', nullable: true }) startDistanceMeters: number | null;
  @Column({ name: 'end_distance_meters', type: 'integer', nullable: true }) endDistanceMeters: number | null;
  @Column({ name: 'completed_task_ids', type: 'text', array: true }) completedTaskIds: string[];
  @Column({ name: 'verification_picture_count', type: 'integer' }) verificationPictureCount: number;
  @Column({ type: 'jsonb' }) problems: StoredProblem[];

  @Column({ name: 'payment_status', type: 'text', nullable: true }) paymentStatus: PaymentStatus | null;
  @Column({ name: 'payment_description', type: 'text', nullable: true }) paymentDescription: string | null;
  @Column({ name: 'payment_updated_at', type: 'timestamptz', nullable: true }) paymentUpdatedAt: Date | null;
}
