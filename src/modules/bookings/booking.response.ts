import { BookingEntity, BookingOtherAttribute } from './booking.entity';

/**
 * The booking read shape (spec 2.4), for responses and booking.* event results alike. guestDetails
 * items show firstName and lastName only: the guests' sourceId and sourcePictureUrl are stored and
 * never returned. Optional values the client never set are null.
 */
export interface BookingResponse {
  bookingId: string;
  sourceBookingId: string;
  propertyId: string;
  status: number;
  startDate: string;
  endDate: string;
  title: string | null;
  guestDetails: Array<{ firstName: string; lastName: string | null }>;
  numberOfGuests: number;
  tags: string[] | null;
  otherAttributes: BookingOtherAttribute[] | null;
  createdAt: string;
  updatedAt: string;
}

export function toBookingResponse(booking: BookingEntity): BookingResponse {
  return {
    bookingId: booking.id,
    sourceBookingId: booking.sourceBookingId,
    propertyId: booking.propertyId,
    status: booking.status,
    startDate: booking.startDate.toISOString(),
    endDate: booking.endDate.toISOString(),
    title: booking.title,
    guestDetails: booking.guestDetails.map((guest) => ({ firstName: guest.firstName, lastName: guest.lastName ?? null })),
    numberOfGuests: booking.numberOfGuests,
    tags: booking.tags,
    otherAttributes: booking.otherAttributes?.map(toOtherAttribute) ?? null,
    createdAt: booking.createdAt.toISOString(),
    updatedAt: booking.updatedAt.toISOString(),
  };
}

/** jsonb reorders keys: rebuilt in the spec's field order, with nothing but the spec's fields. */
function toOtherAttribute(attribute: BookingOtherAttribute): BookingOtherAttribute {
  const shape: BookingOtherAttribute = { label: attribute.label, value: attribute.value };
  if (attribute.group !== undefined) shape.group = attribute.group;
  if (attribute.pictures !== undefined) shape.pictures = attribute.pictures;
  return shape;
}
