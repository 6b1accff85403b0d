import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Properties (the root resource) and their pictures. Dependents (checklists,
 * bookings, jobs) reference properties.id; deleting a property runs their
 * deletion hooks first (see PropertyResolver.onDelete), so no cascade is needed here.
 */
export class Properties1763700100000 implements MigrationInterface {
  name = 'Properties1763700100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE properties (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        source_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        country_code char(2) NOT NULL,
        time_zone text NOT NULL,
        latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
        longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
        address text,
        type text,
        beds integer NOT NULL,
        bedrooms integer NOT NULL,
        bathrooms integer NOT NULL,
        tags text[],
        bed_details jsonb,
        -- details as written, minus disableRemindersAutomation (kept in its own column, never returned).
        details jsonb,
        disable_reminders_automation boolean NOT NULL DEFAULT false,
        -- Legacy picture identifier (not a URL).
        picture_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The list: an account's properties by id (keyset). Also serves lookups by (account_id, id).
    await q.query(`CREATE UNIQUE INDEX properties_account_id_idx ON properties (account_id, id)`);
    // sourceId is the client's key: unique per account (and the sourcePropertyId lookup).
    await q.query(`CREATE UNIQUE INDEX properties_account_source_uq ON properties (account_id, source_id)`);

    await q.query(`
      CREATE TABLE property_pictures (
        id text COLLATE "C" PRIMARY KEY,
        account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        property_id text COLLATE "C" NOT NULL REFERENCES properties (id),
        source_id text COLLATE "C" NOT NULL,
        source_url text NOT NULL,
        storage_key text NOT NULL,
        content_type text NOT NULL,
        byte_size integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A property's pictures in creation order (the read shape's pictureUrls, loaded per page in one query).
    await q.query(`CREATE INDEX property_pictures_property_idx ON property_pictures (account_id, property_id, id)`);
    // One picture per client sourceId on a property.
    await q.query(`CREATE UNIQUE INDEX property_pictures_source_uq ON property_pictures (account_id, property_id, source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE property_pictures`);
    await q.query(`DROP TABLE properties`);
  }
}
