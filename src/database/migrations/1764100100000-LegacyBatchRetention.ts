import { SqlMigration } from '../migration-sql';

/** The legacy batches' 90-day retention finds completed batches by when they completed. */
export class LegacyBatchRetention1764100100000 extends SqlMigration {
  name = 'LegacyBatchRetention1764100100000';

  protected upSql = [`CREATE INDEX legacy_batches_completed_idx ON legacy_batches (completed_at) WHERE completed_at IS NOT NULL`];
  protected downSql = [`DROP INDEX legacy_batches_completed_idx`];
}
