import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';
import { CALENDAR_FEED_SHAPE } from './calendar-feed.response';
import { CALENDAR_FEED_IDS } from './calendar-feeds.ids';

const exampleIds = { calendarFeedId: 'cal_01JDZKAF9G0H1J2K3M4N5P6Q7R' };

/** The example requests' values (the contract test swaps the URL for a local one). */
export const CALENDAR_FEED_EXAMPLES = {
  ...exampleIds,
  calendarFeedUrl: 'https://www.airbnb.com/calendar/ical/41872215.ics?s=5f0d2c3b9a8e7f6d',
};

export const CALENDAR_FEEDS = declareModule({
  ids: CALENDAR_FEED_IDS,
  tenantTables: [{ table: 'calendar_feeds' }, { table: 'calendar_feed_entries', key: ['feed_id', 'uid'] }],
  exampleIds,
  shapes: [CALENDAR_FEED_SHAPE],
  examples: {
    CalendarFeed: {
      id: exampleIds.calendarFeedId,
      propertyId: PROPERTY_EXAMPLES.propertyId,
      url: CALENDAR_FEED_EXAMPLES.calendarFeedUrl,
      label: 'Airbnb',
      checkInTime: '16:00',
      checkOutTime: '11:00',
      defaultNumberOfGuests: 2,
      skipBlocked: true,
      status: 'ok',
      lastSyncedAt: at,
      lastError: null,
      lastWarning: null,
      skippedEvents: 0,
      bookingsImported: 3,
      consecutiveFailures: 0,
      nextSyncAt: '2030-06-20T09:45:00.000Z',
      createdAt: at,
      updatedAt: at,
    },
  },
  events: {
    'calendarFeed.failing': {
      payload: CALENDAR_FEED_SHAPE,
      when: 'the third failing sync in a row (once per streak), in the transaction that records it',
      results: '`[feed]`: `status: failing`, `lastError`, `consecutiveFailures: 3`',
    },
    'calendarFeed.recovered': {
      payload: CALENDAR_FEED_SHAPE,
      when: 'the first successful sync after `calendarFeed.failing`',
      results: '`[feed]`: `status: ok`, `lastError: null`',
    },
  },
  tags: { CalendarFeeds: "Listings' iCal links the worker syncs into a property's bookings (extension)." },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    calendarFeeds: typeof CALENDAR_FEEDS;
  }
}
