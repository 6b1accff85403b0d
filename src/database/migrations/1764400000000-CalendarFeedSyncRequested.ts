import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Calendar feeds (issue 14): `sync_requested_at` is set by POST …/sync and cleared by each sync's claim,
 * so a sync that finishes with it set was asked for again while it ran and leaves the feed due now
 * instead of at the interval (the request is served late, never dropped).
 */
export class CalendarFeedSyncRequested1764400000000 implements MigrationInterface {
  name = 'CalendarFeedSyncRequested1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE calendar_feeds ADD COLUMN sync_requested_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE calendar_feeds DROP COLUMN sync_requested_at`);
  }
}
