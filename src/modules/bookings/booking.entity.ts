import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';
import type { StoredGuest } from './booking.rules';

// The guest type is the rules' (other modules may read rules, never an entity); re-exported for this module's own files.
export type { StoredGuest };

/** The same item shape as a property's otherAttributes (spec 2.1). */
export interface BookingOtherAttribute {
  label: string;
  value: string | string[];
  group?: string;
  pictures?: string[];
}

@Entity('bookings')
export class BookingEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ name: 'source_booking_id', type: 'text' }) sourceBookingId: string;
  /** 1 created, 2 dates changed, 3 cancelled (booking.rules.ts). */
  @Column({ type: 'smallint' }) status: number;
  @Column({ name: 'start_date', type: 'timestamptz' }) startDate: Date;
  @Column({ name: 'end_date', type: 'timestamptz' }) endDate: Date;
  // stay (tstzrange, generated from the two dates) is only read by the list query.
  @Column({ type: 'text', nullable: true }) title: string | null;
  @Column({ name: 'number_of_guests', type: 'integer' }) numberOfGuests: number;
  @Column({ name: 'guest_details', type: 'jsonb' }) guestDetails: StoredGuest[];
  @Column({ type: 'text', array: true, nullable: true }) tags: string[] | null;
  @Column({ name: 'other_attributes', type: 'jsonb', nullable: true }) otherAttributes: BookingOtherAttribute[] | null;
}
