import { accountTable, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Bookings (spec 2.4). The list asks for every booking overlapping a window, ordered by startDate
 * then id; docs/bookings.md explains the index design that keeps a page's cost independent of how
 * many bookings the account has: the window is split at dateFrom into
 *   1. the stays under way at dateFrom (a GiST index on the stay range: a stabbing query whose cost
 *      follows how many stays are under way at that instant, not the history), and
 *   2. the stays starting inside the window (a B-tree range scan on startDate, stopped by LIMIT).
 */
export class Bookings1763900000000 extends SqlMigration {
  name = 'Bookings1763900000000';

  protected upSql = [
    // GiST over (account_id, stay): btree_gist gives text an equality operator class for GiST. A trusted
    // extension (PostgreSQL 13+): a database owner may create it without being superuser.
    `CREATE EXTENSION IF NOT EXISTS btree_gist`,
    accountTable(
      'bookings',
      `-- The service deletes a property's bookings itself (booking.delete events, and it refuses while
      -- stays are still ahead); no cascade, so a booking can never vanish without its event.
      property_id text COLLATE "C" NOT NULL REFERENCES properties (id),
      source_booking_id text COLLATE "C" NOT NULL,
      -- 1 created, 2 dates changed, 3 cancelled (spec 3.1).
      status smallint NOT NULL CHECK (status IN (1, 2, 3)),
      start_date timestamptz NOT NULL,
      end_date timestamptz NOT NULL,
      -- [start_date, end_date): what the overlap half of the list searches (index-only, see above).
      stay tstzrange GENERATED ALWAYS AS (tstzrange(start_date, end_date)) STORED,
      title text,
      number_of_guests integer NOT NULL,
      -- Every item as written (sourceId, firstName, lastName, sourcePictureUrl); the read shape shows names only.
      guest_details jsonb NOT NULL,
      tags text[],
      other_attributes jsonb,
      ${TIMESTAMPS},
      CONSTRAINT bookings_stay_check CHECK (end_date > start_date)`,
    ),
    // sourceBookingId is the client's key: unique per account (the 409, and the lookup by sourceBookingId).
    `CREATE UNIQUE INDEX bookings_account_source_uq ON bookings (account_id, source_booking_id)`,
    // The list, part 2: stays starting inside the window, in list order; status included for the filter.
    `CREATE INDEX bookings_account_start_idx ON bookings (account_id, start_date, id) INCLUDE (status)`,
    // The same for one property (?propertyId=), and a property's bookings for its deletion hook.
    `CREATE INDEX bookings_property_start_idx ON bookings (account_id, property_id, start_date, id) INCLUDE (status)`,
    // The list, part 1: stays under way at dateFrom. The included columns make it index-only (the page's
    // keys are sorted from the index; only the page's rows are read from the table).
    `CREATE INDEX bookings_account_stay_idx ON bookings USING gist (account_id, stay) INCLUDE (id, property_id, status)`,
  ];

  protected downSql = [`DROP TABLE bookings`];
}
