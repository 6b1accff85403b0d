import { InvalidStateError } from '../../platform/errors/domain-error';
import { orderedInstants } from '../../platform/pagination/date-window';

/** A guest as written on create or update; the read shape shows firstName and lastName only. */
export interface StoredGuest {
  sourceId: string;
  firstName: string;
  lastName?: string;
  sourcePictureUrl?: string;
}

/** Booking status (spec 3.1). */
export const BOOKING_STATUS = { created: 1, datesChanged: 2, cancelled: 3 } as const;
export type BookingStatus = (typeof BOOKING_STATUS)[keyof typeof BOOKING_STATUS];
export const BOOKING_STATUSES: readonly number[] = Object.values(BOOKING_STATUS);

/** Limits of the booking write shape: the spec's (2.4, 8) plus the ones we chose where it is silent (docs/bookings.md). */
export const BOOKING_LIMITS = {
  sourceBookingId: { min: 1, max: 100 },
  title: 200,
  numberOfGuests: { min: 1, max: 1000 },
  guestDetails: { min: 1, max: 100 },
  guestText: 100,
  otherAttributes: 100,
} as const;

export interface Stay {
  startDate: Date;
  endDate: Date;
}

/**
 * startDate (check-in) and endDate (check-out), already validated as date-times, as a stay: the
 * check-out must come after the check-in (a zero-length stay is refused too). 400 at #/endDate.
 */
export function stayOf(startDate: string, endDate: string): Stay {
  const [start, end] = orderedInstants({ startDate }, { endDate }, 'sameRefused');
  return { startDate: start, endDate: end };
}

/** Spec 3.1: any status may change dates, except a cancelled booking (our rule: its stay is over). → 2. */
export function statusAfterDateChange(booking: { id: string; status: number }): BookingStatus {
  if (booking.status === BOOKING_STATUS.cancelled) {
    throw new InvalidStateError(
      `Booking ${booking.id} is cancelled (status 3) and its dates can no longer change; create a new booking instead`,
      { bookingId: booking.id, status: booking.status },
    );
  }
  return BOOKING_STATUS.datesChanged;
}

/** Cancelling is allowed from any status (spec 3.1); cancelling a cancelled booking changes nothing. */
export function isCancelled(booking: { status: number }): boolean {
  return booking.status === BOOKING_STATUS.cancelled;
}

export interface GuestInput {
  sourceId: string;
  firstName: string;
  lastName?: string | null;
  sourcePictureUrl?: string | null;
}

/** Guests as stored: every field written (null or absent optional fields left out), in the spec's field order. */
export function storedGuests(guests: GuestInput[]): StoredGuest[] {
  return guests.map((guest) => {
    const stored: StoredGuest = { sourceId: guest.sourceId, firstName: guest.firstName };
    if (guest.lastName !== undefined && guest.lastName !== null) stored.lastName = guest.lastName;
    if (guest.sourcePictureUrl !== undefined && guest.sourcePictureUrl !== null) stored.sourcePictureUrl = guest.sourcePictureUrl;
    return stored;
  });
}
