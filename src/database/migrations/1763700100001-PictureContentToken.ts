import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The served picture URL carries a random token besides the picture id: ids are
 * monotonic ULIDs (ids minted in the same millisecond differ by one), so an id alone
 * is not an unguessable capability. Existing rows get a random token.
 */
export class PictureContentToken1763700100001 implements MigrationInterface {
  name = 'PictureContentToken1763700100001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE property_pictures ADD COLUMN content_token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '')`);
    await q.query(`ALTER TABLE property_pictures ALTER COLUMN content_token DROP DEFAULT`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE property_pictures DROP COLUMN content_token`);
  }
}
