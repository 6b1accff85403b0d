import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Checklists: one row per checklist, its minted step structure (groups with their
 * tasks and server ids) kept as one jsonb document because it is always read and
 * replaced whole (PATCH with taskGroups re-mints every id).
 */
export class Checklists1763700200000 implements MigrationInterface {
  name = 'Checklists1763700200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE checklists (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        -- The service deletes a property's checklists itself (emitting checklist.delete);
        -- the cascade is only a safety net so no checklist can outlive its property.
        property_id text COLLATE "C" NOT NULL REFERENCES properties (id) ON DELETE CASCADE,
        title text NOT NULL,
        description text,
        task_groups jsonb NOT NULL,
        disabled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // GET /v1/properties/{id}/checklists and the property-delete hook: a property's checklists in id order.
    await q.query(`CREATE INDEX checklists_property_idx ON checklists (account_id, property_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE checklists`);
  }
}
