import { accountTable, CREATED_AT, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Properties (the root resource) and their pictures. Dependents (checklists,
 * bookings, jobs) reference properties.id; deleting a property runs their
 * deletion hooks first (see PropertyResolver.onDelete), so no cascade is needed here.
 */
export class Properties1763700100000 extends SqlMigration {
  name = 'Properties1763700100000';

  protected upSql = [
    accountTable(
      'properties',
      `source_id text COLLATE "C" NOT NULL,
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
      ${TIMESTAMPS}`,
    ),
    // The list: an account's properties by id (keyset). Also serves lookups by (account_id, id).
    `CREATE UNIQUE INDEX properties_account_id_idx ON properties (account_id, id)`,
    // sourceId is the client's key: unique per account (and the sourcePropertyId lookup).
    `CREATE UNIQUE INDEX properties_account_source_uq ON properties (account_id, source_id)`,

    accountTable(
      'property_pictures',
      `property_id text COLLATE "C" NOT NULL REFERENCES properties (id),
      source_id text COLLATE "C" NOT NULL,
      source_url text NOT NULL,
      storage_key text NOT NULL,
      content_type text NOT NULL,
      byte_size integer NOT NULL,
      ${CREATED_AT}`,
    ),
    // A property's pictures in creation order (the read shape's pictureUrls, loaded per page in one query).
    `CREATE INDEX property_pictures_property_idx ON property_pictures (account_id, property_id, id)`,
    // One picture per client sourceId on a property.
    `CREATE UNIQUE INDEX property_pictures_source_uq ON property_pictures (account_id, property_id, source_id)`,
  ];

  protected downSql = [`DROP TABLE property_pictures`, `DROP TABLE properties`];
}
