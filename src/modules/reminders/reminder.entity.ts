import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';

/** The job time object (spec 2.5 / 2.6) as written: only the keys sent. */
export interface JobTime {
  type: 'fixed' | 'flexible';
  startTime: string;
  endTime?: string;
  durationInHours?: number;
  durationInMinutes?: number;
}

/** jobRequestSettings as written: only the keys sent. */
export interface JobRequestSettings {
  time?: JobTime;
  offeredPrice?: number;
  offeredPriceCurrency?: string;
  message?: string;
}

@Entity('reminders')
export class ReminderEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ type: 'text' }) title: string;
  @Column({ type: 'timestamptz' }) date: Date;
  @Column({ name: 'source_booking_id', type: 'text', nullable: true }) sourceBookingId: string | null;
  @Column({ name: 'source_id', type: 'text', nullable: true }) sourceId: string | null;
  @Column({ type: 'boolean' }) actionable: boolean;
  @Column({ name: 'checklist_ids', type: 'text', array: true }) checklistIds: string[];
  @Column({ name: 'job_request_settings', type: 'jsonb', nullable: true }) jobRequestSettings: JobRequestSettings | null;
  /** Created by the scheduling automation for the booking with sourceBookingId. */
  @Column({ type: 'boolean' }) automatic: boolean;
  /** When reminder.due was emitted (once); null until then. */
  @Column({ name: 'fired_at', type: 'timestamptz', nullable: true }) firedAt: Date | null;
}
