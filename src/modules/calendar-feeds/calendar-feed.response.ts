import { CalendarFeedEntity } from './calendar-feed.entity';
import type { FeedStatus } from './calendar-feed.rules';
import { bool, dateTime, described, enumOf, everyMember, id, int, orNull, str, uri } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { CALENDAR_FEED_IDS } from './calendar-feeds.ids';
import { PROPERTY_IDS } from '../properties/properties.ids';

const HH_MM = '^([01]\\d|2[0-3]):[0-5]\\d$';

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

export const CALENDAR_FEED_SHAPE = readShape<CalendarFeedResponse>(
  'CalendarFeed',
  "A calendar feed (issue 14, an extension of the spec): an iCal link the worker syncs into the property's bookings.",
  {
    id: id(CALENDAR_FEED_IDS.calendarFeed),
    propertyId: id(PROPERTY_IDS.property),
    url: uri,
    label: orNull(str),
    checkInTime: { type: 'string', pattern: HH_MM, description: 'date-only stays start at this time, in the property time zone' },
    checkOutTime: { type: 'string', pattern: HH_MM, description: 'date-only stays end at this time, in the property time zone' },
    defaultNumberOfGuests: { type: 'integer', minimum: 1, maximum: 50 },
    skipBlocked: bool,
    status: enumOf(
      everyMember<FeedStatus>({ pending: true, ok: true, failing: true }),
      'pending until the first sync; failing from a failed sync until one succeeds',
    ),
    lastSyncedAt: described(orNull(dateTime), 'the last sync that read the calendar (a 304 included)'),
    lastError: described(orNull(str), 'why the last sync failed, for the host; null after a success'),
    lastWarning: described(orNull(str), 'events the last successful sync skipped, and why'),
    skippedEvents: described(int, 'events of the last successful sync that could not be read'),
    bookingsImported: described(int, 'bookings the feed keeps in sync'),
    consecutiveFailures: described(int, 'failing syncs in a row; the third emits calendarFeed.failing'),
    nextSyncAt: dateTime,
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
