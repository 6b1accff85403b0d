import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { BOOKING_SHAPE } from './booking.response';
import { BOOKING_IDS } from './bookings.ids';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';

const exampleIds = { bookingId: 'bk_01JDZK6B2C3D4E5F6G7H8J9K0M' };

/** The example requests' values (the route docs' examples). */
export const BOOKING_EXAMPLES = {
  ...exampleIds,
  bookingBody: {
    sourceBookingId: 'airbnb-HM4K2Q',
    propertyId: PROPERTY_EXAMPLES.propertyId,
    startDate: '2030-07-10T15:00:00Z',
    endDate: '2030-07-15T10:00:00Z',
    numberOfGuests: 2,
    guestDetails: [{ sourceId: 'guest-1', firstName: 'Ana', lastName: 'Lima' }],
    title: 'Summer stay',
  },
};

export const BOOKINGS = declareModule({
  ids: BOOKING_IDS,
  tenantTables: [{ table: 'bookings' }],
  exampleIds,
  shapes: [BOOKING_SHAPE],
  examples: {
    Booking: {
      bookingId: exampleIds.bookingId,
      sourceBookingId: 'airbnb-HM4K2Q',
      propertyId: PROPERTY_EXAMPLES.propertyId,
      status: 1,
      startDate: '2030-07-10T15:00:00.000Z',
      endDate: '2030-07-15T10:00:00.000Z',
      title: 'Summer stay',
      guestDetails: [{ firstName: 'Ana', lastName: 'Lima' }],
      numberOfGuests: 2,
      tags: null,
      otherAttributes: null,
      createdAt: at,
      updatedAt: at,
    },
  },
  events: {
    'booking.create': {
      payload: BOOKING_SHAPE,
      when: '`POST /v1/bookings` succeeded (not on an idempotent replay)',
      results: '`[booking]`: as in the 201 response',
    },
    'booking.update': {
      payload: BOOKING_SHAPE,
      when: '`PATCH /v1/bookings/{bookingId}` with at least one field',
      results: '`[booking]`: the booking after the update',
    },
    'booking.changeDates': {
      payload: BOOKING_SHAPE,
      when: '`PATCH /v1/bookings/{bookingId}/dates` succeeded (status 2)',
      results: '`[booking]`: with its new dates and status 2',
    },
    'booking.cancel': {
      payload: BOOKING_SHAPE,
      when: '`POST /v1/bookings/{bookingId}/cancel` on a booking not yet cancelled',
      results: '`[booking]`: with status 3',
    },
    'booking.delete': {
      payload: BOOKING_SHAPE,
      when: '`DELETE /v1/bookings/{bookingId}`, or its property was deleted (one event per booking, oldest first, before `property.delete`)',
      results: '`[booking]`: the booking as it was just before deletion',
    },
  },
  tags: { Bookings: 'Bookings; creating one triggers the scheduling automation.' },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    bookings: typeof BOOKINGS;
  }
}
