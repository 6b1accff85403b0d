import { accountTable, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Reminders (spec 2.5): written by clients, or by the scheduling automation for a booking's
 * turnover (automatic, tied by source_booking_id). A reminder fires once at its date: fired_at is
 * the flag the firing claims atomically (docs/reminders.md).
 */
export class Reminders1763900100000 extends SqlMigration {
  name = 'Reminders1763900100000';

  protected upSql = [
    accountTable(
      'reminders',
      `-- Deleted by the service with the property (reminder.delete events); no cascade.
      property_id text COLLATE "C" NOT NULL REFERENCES properties (id),
      title text NOT NULL,
      date timestamptz NOT NULL,
      source_booking_id text COLLATE "C",
      source_id text,
      actionable boolean NOT NULL DEFAULT false,
      -- The checklists' ids, in the order written (items {checklistId} on the wire).
      checklist_ids text[] NOT NULL DEFAULT '{}',
      -- As written; the read shape lists its keys in the spec's order (reminder.response.ts).
      job_request_settings jsonb,
      -- Created by the scheduling automation for the booking with source_booking_id.
      automatic boolean NOT NULL DEFAULT false,
      -- Set once, by whichever firing path claims the reminder first (the delayed job or the sweep).
      fired_at timestamptz,
      ${TIMESTAMPS},
      CONSTRAINT reminders_automatic_booking_check CHECK (NOT automatic OR source_booking_id IS NOT NULL)`,
    ),
    // GET /v1/reminders: the account's reminders by date (keyset on date, id) ...
    `CREATE INDEX reminders_account_date_idx ON reminders (account_id, date, id)`,
    // ... and one property's (?propertyId=), also the property deletion hook.
    `CREATE INDEX reminders_property_date_idx ON reminders (account_id, property_id, date, id)`,
    // The automation finds a booking's turnover reminder; at most one per booking.
    `CREATE UNIQUE INDEX reminders_automatic_booking_uq ON reminders (account_id, source_booking_id) WHERE automatic`,
    // The firing sweep, across accounts (like the events' dispatch sweep): unfired reminders by date. Fired
    // reminders leave the index, so it only ever holds the reminders still to come.
    `CREATE INDEX reminders_unfired_date_idx ON reminders (date) WHERE fired_at IS NULL`,
  ];

  protected downSql = [`DROP TABLE reminders`];
}
