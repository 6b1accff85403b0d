import { CalendarFeedEntity } from './calendar-feed.entity';
import type { FeedStatus } from './calendar-feed.rules';

/** A feed as every route, calendarFeed.failing and calendarFeed.recovered show it. */
export interface CalendarFeedResponse {
  id: string;
  propertyId: string;
  url: string;
  label: string | null;
  checkInTime: string;
  checkOutTime: string;
  defaultNumberOfGuests: number;
  skipBlocked: boolean;
  status: FeedStatus;
  /** The last sync that read the calendar (a 304 included); null until the first. */
  lastSyncedAt: string | null;
  /** Why the last sync failed, for the host; null once a sync succeeds. */
  lastError: string | null;
  /** What the last successful sync skipped (bad events), for the host; null when nothing. */
  lastWarning: string | null;
  /** Events of the last successful sync that could not be read (skipped, counted, not fatal). */
  skippedEvents: number;
  /** Bookings the feed keeps in sync (its events linked to a booking). */
  bookingsImported: number;
  /** Failing syncs in a row (3 emit calendarFeed.failing). */
  consecutiveFailures: number;
  nextSyncAt: string;
  createdAt: string;
  updatedAt: string;
}

export function toCalendarFeedResponse(row: CalendarFeedEntity): CalendarFeedResponse {
  return {
    id: row.id,
    propertyId: row.propertyId,
    url: row.url,
    label: row.label,
    checkInTime: row.checkInTime,
    checkOutTime: row.checkOutTime,
    defaultNumberOfGuests: row.defaultNumberOfGuests,
    skipBlocked: row.skipBlocked,
    status: row.status,
    lastSyncedAt: row.lastSyncedAt ? row.lastSyncedAt.toISOString() : null,
    lastError: row.lastError,
    lastWarning: row.lastWarning,
    skippedEvents: row.skippedEvents,
    bookingsImported: row.bookingsImported,
    consecutiveFailures: row.consecutiveFailures,
    nextSyncAt: row.nextSyncAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
