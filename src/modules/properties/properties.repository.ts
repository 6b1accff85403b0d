import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';
import { Sql } from '../../platform/database/sql';
import { PropertyPictureEntity } from './property-picture.entity';
import { PropertyEntity } from './property.entity';

/** A property with the ids of its pictures in creation order: everything its read shape needs. */
export type PropertyWithPictures = PropertyEntity & { pictureIds: string[] };

const PROPERTY_COLUMNS = columns<PropertyEntity>(
  {
    id: 'id',
    accountId: 'account_id',
    sourceId: 'source_id',
    name: 'name',
    countryCode: 'country_code',
    timeZone: 'time_zone',
    latitude: 'latitude',
    longitude: 'longitude',
    address: 'address',
    type: 'type',
    beds: 'beds',
    bedrooms: 'bedrooms',
    bathrooms: 'bathrooms',
    tags: 'tags',
    bedDetails: 'bed_details',
    details: 'details',
    disableRemindersAutomation: 'disable_reminders_automation',
    pictureUrl: 'picture_url',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
  },
  PropertyEntity,
);

/**
 * The columns of a property under their entity names, and its picture ids from the index
 * property_pictures_property_idx: a property and its children in one query.
 */
const WITH_PICTURES = `${PROPERTY_COLUMNS.selectList('p')},
  ARRAY(SELECT pp.id FROM property_pictures pp WHERE pp.account_id = p.account_id AND pp.property_id = p.id ORDER BY pp.id) AS "pictureIds"`;

function withPictures(row: SelectedRow): PropertyWithPictures {
  return Object.assign(PROPERTY_COLUMNS.toEntity(row), { pictureIds: row.pictureIds as string[] });
}

const FIND_WITH_PICTURES = `SELECT ${WITH_PICTURES} FROM properties p WHERE p.account_id = $1 AND p.id = $2`;
const FIRST_PAGE = `SELECT ${WITH_PICTURES} FROM properties p WHERE p.account_id = $1 ORDER BY p.id LIMIT $2`;
const NEXT_PAGE = `SELECT ${WITH_PICTURES} FROM properties p WHERE p.account_id = $1 AND p.id > $2 ORDER BY p.id LIMIT $3`;

/** Optional filters of the list (GET /v1/properties?name=&sourceId=). */
export interface PropertyFilter {
  /** A case-insensitive part of the name. */
  name?: string;
  /** The client's id, exactly. */
  sourceId?: string;
}

/** `%` and `_` are LIKE wildcards and `\\` its escape: a name part is matched as written. */
const likePart = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The filtered list: rare next to the plain one, so a one-shot query (sourceId is unique per account, name scans the account's rows). */
const FILTERED_PAGE = `SELECT ${WITH_PICTURES} FROM properties p
  WHERE p.account_id = $1 AND ($2::text IS NULL OR p.id > $2)
    AND ($3::text IS NULL OR p.name ILIKE $3) AND ($4::text IS NULL OR p.source_id = $4)
  ORDER BY p.id LIMIT $5`;

/** Property queries worth a name. Every one is scoped by account. */
@Injectable()
export class PropertiesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {}

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /**
   * One property, optionally locked for the rest of the transaction: 'update' (FOR UPDATE) for a
   * delete, which must wait for every dependent that resolved the property (FOR KEY SHARE);
   * 'noKeyUpdate' (FOR NO KEY UPDATE) for a PATCH, which dependents' key-share locks do not block
   * (a PATCH of the sourceId, the key, takes 'update').
   */
  findOne(manager: EntityManager, accountId: string, id: string, lock?: 'update' | 'noKeyUpdate'): Promise<PropertyEntity | null> {
    return manager.findOne(PropertyEntity, {
      where: { accountId, id },
      ...(lock ? { lock: { mode: lock === 'update' ? ('pessimistic_write' as const) : ('for_no_key_update' as const) } } : {}),
    });
  }

  /** The property's pictures, locked FOR UPDATE in id order until the transaction ends (every path that deletes them locks them so). */
  lockPictures(manager: EntityManager, accountId: string, propertyId: string): Promise<PropertyPictureEntity[]> {
    return manager.find(PropertyPictureEntity, {
      where: { accountId, propertyId },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async findIdBySourceId(manager: EntityManager, accountId: string, sourceId: string): Promise<string | undefined> {
    const row = await manager.findOne(PropertyEntity, { where: { accountId, sourceId }, select: { id: true } });
    return row?.id;
  }

  /** The picture of the property with this client sourceId (unique per property: property_pictures_source_uq). */
  async findPictureIdBySourceId(
    manager: EntityManager,
    accountId: string,
    propertyId: string,
    sourceId: string,
  ): Promise<string | undefined> {
    const row = await manager.findOne(PropertyPictureEntity, { where: { accountId, propertyId, sourceId }, select: { id: true } });
    return row?.id;
  }

  /** The hot read: one prepared statement outside any transaction. */
  async findWithPictures(accountId: string, id: string): Promise<PropertyWithPictures | undefined> {
    const [row] = await this.sql.prepared<SelectedRow>('property_with_pictures', FIND_WITH_PICTURES, [accountId, id]);
    return row ? withPictures(row) : undefined;
  }

  /** The same read inside a transaction (a use case's read shape sees its own writes). */
  async findWithPicturesIn(manager: EntityManager, accountId: string, id: string): Promise<PropertyWithPictures | undefined> {
    const [row]: SelectedRow[] = await manager.query(FIND_WITH_PICTURES, [accountId, id]);
    return row ? withPictures(row) : undefined;
  }

  /** A keyset page by id with each property's pictures (index properties_account_id_idx); `take` is limit + 1. */
  async listPage(
    accountId: string,
    afterId: string | undefined,
    take: number,
    filter: PropertyFilter = {},
  ): Promise<PropertyWithPictures[]> {
    if (filter.name !== undefined || filter.sourceId !== undefined) {
      const values = [accountId, afterId ?? null, filter.name === undefined ? null : likePart(filter.name), filter.sourceId ?? null, take];
      const filtered: SelectedRow[] = await this.dataSource.query(FILTERED_PAGE, values);
      return filtered.map(withPictures);
    }
    const rows =
      afterId === undefined
        ? await this.sql.prepared<SelectedRow>('property_first_page', FIRST_PAGE, [accountId, take])
        : await this.sql.prepared<SelectedRow>('property_next_page', NEXT_PAGE, [accountId, afterId, take]);
    return rows.map(withPictures);
  }
}
