import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in bookings.declaration.ts). */
export const BOOKING_IDS = idKinds({ booking: 'bk' });
