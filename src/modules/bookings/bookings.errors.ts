import { ConflictError, DomainError } from '../../platform/errors/domain-error';

/**
 * Spec 7: a sourceBookingId already used by the account is a 409 conflict whose detail tells the
 * client to update the existing booking instead; it carries that booking's id (as bookingId, and
 * as existingId like the other duplicate conflicts).
 */
export function duplicateSourceBookingId(sourceBookingId: string, bookingId: string): ConflictError {
  return new ConflictError(
    `A booking with sourceBookingId ${sourceBookingId} already exists (bookingId ${bookingId}); update that booking instead ` +
      `(PATCH /v1/bookings/${bookingId}, or PATCH /v1/bookings/${bookingId}/dates for its dates)`,
    { bookingId, existingId: bookingId },
  );
}

/** Property deletion refused while stays are still ahead (PropertyResolver deletion hook). */
export function propertyHasActiveBookings(propertyId: string, count: number): DomainError {
  const bookings = count === 1 ? '1 booking that is not cancelled and ends' : `${count} bookings that are not cancelled and end`;
  return new ConflictError(
    `Property ${propertyId} still has ${bookings} in the future; cancel or delete ${count === 1 ? 'it' : 'them'} before deleting the property`,
    { activeBookingCount: count },
  );
}
