import { accountTable, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Calendar feeds (issue 14, docs/calendar-feeds.md): iCal links a worker syncs into bookings.
 *
 * calendar_feed_entries maps each (feed, UID) to the booking it keeps in sync, with the stay the feed
 * last listed: a sync compares the calendar with these rows (no booking read for an unchanged event),
 * and two feeds of one property listing the same stay share one booking through two rows.
 */
export class CalendarFeeds1764200000000 extends SqlMigration {
  name = 'CalendarFeeds1764200000000';

  protected upSql = [
    accountTable(
      'calendar_feeds',
      `-- A feed has no events of its own to write when its property goes: it goes with it.
      property_id text COLLATE "C" NOT NULL REFERENCES properties (id) ON DELETE CASCADE,
      url text NOT NULL,
      label text,
      check_in_time text NOT NULL,
      check_out_time text NOT NULL,
      default_number_of_guests integer NOT NULL,
      skip_blocked boolean NOT NULL,
      -- pending (never synced), ok, failing.
      status text NOT NULL CHECK (status IN ('pending', 'ok', 'failing')),
      last_synced_at timestamptz,
      last_error text,
      last_warning text,
      skipped_events integer NOT NULL DEFAULT 0,
      bookings_imported integer NOT NULL DEFAULT 0,
      consecutive_failures integer NOT NULL DEFAULT 0,
      -- The validators of the last calendar read, sent back as If-None-Match / If-Modified-Since.
      etag text,
      last_modified text,
      next_sync_at timestamptz NOT NULL DEFAULT now(),
      -- The lease of the worker syncing the feed (one at a time across workers); null when none.
      sync_claimed_until timestamptz,
      ${TIMESTAMPS}`,
    ),
    `CREATE INDEX calendar_feeds_property_idx ON calendar_feeds (account_id, property_id, id)`,
    // One feed per link and property: a second one would import the same stays twice over.
    `CREATE UNIQUE INDEX calendar_feeds_property_url_uq ON calendar_feeds (account_id, property_id, url)`,
    // The worker's scan for feeds due a sync, across accounts, soonest first.
    `CREATE INDEX calendar_feeds_due_idx ON calendar_feeds (next_sync_at)`,
    `CREATE TABLE calendar_feed_entries (
      feed_id text COLLATE "C" NOT NULL REFERENCES calendar_feeds (id) ON DELETE CASCADE,
      uid text NOT NULL,
      account_id text COLLATE "C" NOT NULL,
      property_id text COLLATE "C" NOT NULL,
      -- No foreign key into bookings (another module's table): a booking deleted through the API
      -- leaves its entry, which keeps the sync from importing that UID again.
      booking_id text COLLATE "C" NOT NULL,
      start_date timestamptz NOT NULL,
      end_date timestamptz NOT NULL,
      PRIMARY KEY (feed_id, uid)
    )`,
    // The same stay from another feed of the property (one booking for both).
    `CREATE INDEX calendar_feed_entries_stay_idx ON calendar_feed_entries (account_id, property_id, start_date, end_date)`,
    // Whether another feed still lists a booking before a removal cancels it.
    `CREATE INDEX calendar_feed_entries_booking_idx ON calendar_feed_entries (booking_id)`,
  ];

  protected downSql = [`DROP TABLE calendar_feed_entries`, `DROP TABLE calendar_feeds`];
}
