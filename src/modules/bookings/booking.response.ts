import { arrayOf, dateTime, enumOf, id, int, orNull, ref, shapeOf, str } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { toOtherAttribute } from '../properties/property.response';
import { BookingEntity, BookingOtherAttribute } from './booking.entity';
import { BOOKING_STATUSES } from './booking.rules';
import { BOOKING_IDS } from './bookings.ids';
import { PROPERTY_IDS } from '../properties/properties.ids';

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

export const BOOKING_SHAPE = readShape<BookingResponse>(
  'Booking',
  "A booking (spec 2.4); guests' sourceId and sourcePictureUrl are never returned.",
  {
    bookingId: id(BOOKING_IDS.booking),
    sourceBookingId: str,
    propertyId: id(PROPERTY_IDS.property),
    status: enumOf(BOOKING_STATUSES, '1 created, 2 dates changed, 3 cancelled'),
    startDate: dateTime,
    endDate: dateTime,
    title: orNull(str),
    guestDetails: arrayOf(shapeOf<BookingResponse['guestDetails'][number]>('A guest.', { firstName: str, lastName: orNull(str) })),
    numberOfGuests: int,
    tags: orNull(arrayOf(str)),
    // The same attribute shape as the property's (components/schemas/OtherAttribute).
    otherAttributes: orNull(arrayOf(ref('OtherAttribute'))),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
