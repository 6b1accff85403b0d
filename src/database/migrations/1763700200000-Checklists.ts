import { accountTable, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Checklists: one row per checklist, its minted step structure (groups with their
 * tasks and server ids) kept as one jsonb document because it is always read and
 * replaced whole (PATCH with taskGroups re-mints every id).
 */
export class Checklists1763700200000 extends SqlMigration {
  name = 'Checklists1763700200000';

  protected upSql = [
    accountTable(
      'checklists',
      `-- The service deletes a property's checklists itself (emitting checklist.delete);
      -- the cascade is only a safety net so no checklist can outlive its property.
      property_id text COLLATE "C" NOT NULL REFERENCES properties (id) ON DELETE CASCADE,
      title text NOT NULL,
      description text,
      task_groups jsonb NOT NULL,
      disabled_at timestamptz,
      ${TIMESTAMPS}`,
    ),
    // GET /v1/properties/{id}/checklists and the property-delete hook: a property's checklists in id order.
    `CREATE INDEX checklists_property_idx ON checklists (account_id, property_id, id)`,
  ];

  protected downSql = [`DROP TABLE checklists`];
}
