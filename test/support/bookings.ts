import type { BookingResponse } from '../../src/modules/bookings/booking.response';
import { ApiClient } from './app';
import { uniq } from './properties';

/** Booking fixtures for end-to-end tests (bookings, reminders, the automation). */

export const DAY = 24 * 60 * 60 * 1000;

/** An ISO date-time `days` days (fractions allowed) after `from` (default 2030-01-01T00:00:00Z). */
export function at(days: number, from = Date.UTC(2030, 0, 1)): string {
  return new Date(from + days * DAY).toISOString();
}

/** A valid POST /v1/bookings body with a fresh sourceBookingId: a 3-night stay from 2030-01-01 15:00. */
export function validBooking(propertyId: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    sourceBookingId: `bk-${uniq()}`,
    propertyId,
    startDate: '2030-01-01T15:00:00.000Z',
    endDate: '2030-01-04T10:00:00.000Z',
    numberOfGuests: 2,
    guestDetails: [{ sourceId: 'guest-1', firstName: 'Ada', lastName: 'Lovelace', sourcePictureUrl: 'https://images.example.com/ada.png' }],
    ...overrides,
  };
}

export async function createBooking(api: ApiClient, propertyId: string, overrides: Record<string, unknown> = {}): Promise<BookingResponse> {
  const res = await api.post('/v1/bookings').send(validBooking(propertyId, overrides));
  if (res.status !== 201) throw new Error(`create booking: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every page of GET /v1/bookings for the query (without cursor), concatenated. */
export async function listAll(api: ApiClient, query: string, limit = 100): Promise<BookingResponse[]> {
  const rows: BookingResponse[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await api.get(`/v1/bookings?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200);
    rows.push(...res.body.data);
    if (!res.body.hasMore) return rows;
    cursor = res.body.nextCursor;
  }
}
