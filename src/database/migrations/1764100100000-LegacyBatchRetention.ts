import { MigrationInterface, QueryRunner } from 'typeorm';

/** The legacy batches' 90-day retention finds completed batches by when they completed. */
export class LegacyBatchRetention1764100100000 implements MigrationInterface {
  name = 'LegacyBatchRetention1764100100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX legacy_batches_completed_idx ON legacy_batches (completed_at) WHERE completed_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX legacy_batches_completed_idx`);
  }
}
