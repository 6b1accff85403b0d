import { SqlMigration } from '../migration-sql';

/**
 * Calendar feeds (issue 14): `sync_requested_at` is set by POST …/sync and cleared by each sync's claim,
 * so a sync that finishes with it set was asked for again while it ran and leaves the feed due now
 * instead of at the interval (the request is served late, never dropped).
 */
export class CalendarFeedSyncRequested1764400000000 extends SqlMigration {
  name = 'CalendarFeedSyncRequested1764400000000';

  protected upSql = [`ALTER TABLE calendar_feeds ADD COLUMN sync_requested_at timestamptz`];
  protected downSql = [`ALTER TABLE calendar_feeds DROP COLUMN sync_requested_at`];
}
