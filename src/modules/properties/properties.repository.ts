import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { PropertyPictureEntity } from './property-picture.entity';
import { PropertyEntity } from './property.entity';

/** Property queries worth a name. Every one is scoped by account. */
@Injectable()
export class PropertiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /**
   * One property, optionally locked for the rest of the transaction: 'update' (FOR UPDATE) for a
   * delete, which must wait for every dependent that resolved the property (FOR KEY SHARE);
   * 'noKeyUpdate' (FOR NO KEY UPDATE) for a PATCH, which dependents' key-share locks do not block.
   */
  findOne(manager: EntityManager, accountId: string, id: string, lock?: 'update' | 'noKeyUpdate'): Promise<PropertyEntity | null> {
    return manager.findOne(PropertyEntity, {
      where: { accountId, id },
      ...(lock ? { lock: { mode: lock === 'update' ? ('pessimistic_write' as const) : ('for_no_key_update' as const) } } : {}),
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

  /** A keyset page by id (index properties_account_id_idx); `take` is limit + 1. */
  listPage(accountId: string, afterId: string | undefined, take: number): Promise<PropertyEntity[]> {
    const query = this.dataSource
      .getRepository(PropertyEntity)
      .createQueryBuilder('p')
      .where('p.account_id = :accountId', { accountId })
      .orderBy('p.id', 'ASC')
      .limit(take);
    if (afterId !== undefined) query.andWhere('p.id > :afterId', { afterId });
    return query.getMany();
  }

  /** The pictures of several properties in one query, grouped by property id, each group in creation order. */
  async picturesOf(manager: EntityManager, accountId: string, propertyIds: string[]): Promise<Map<string, PropertyPictureEntity[]>> {
    const byProperty = new Map<string, PropertyPictureEntity[]>(propertyIds.map((id) => [id, []]));
    if (propertyIds.length === 0) return byProperty;
    const pictures = await manager.find(PropertyPictureEntity, {
      where: { accountId, propertyId: In(propertyIds) },
      order: { propertyId: 'ASC', id: 'ASC' },
    });
    for (const picture of pictures) byProperty.get(picture.propertyId)?.push(picture);
    return byProperty;
  }
}
