import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { isUniqueViolation } from '../../platform/database/pg-errors';
import { foundById } from '../../platform/ids/found-by-id';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { DomainError, NotFoundError } from '../../platform/errors/domain-error';
import { RequestContext } from '../../platform/context/request-context';
import { isIdOf, newId } from '../../platform/ids/ids';
import { DownloadError, SafeDownloader } from '../../platform/net/safe-download';
import { BLOB_STORE, BlobStore } from '../../platform/storage/blob-store';
import { sniffImageType } from '../../platform/storage/image-type';
import { EventsService } from '../events/events.service';
import { CreatePropertyPictureDto } from './dto/create-property-picture.dto';
import { duplicatePictureSourceId, PICTURE_SOURCE_ID_CONSTRAINT } from './properties.errors';
import { PropertiesRepository } from './properties.repository';
import { PropertyPictureEntity } from './property-picture.entity';
import { PictureFailure, pictureFailureDetail } from './property-picture.rules';
import { PropertyPictureResponse, toPropertyPictureResponse } from './property-picture.response';
import { PropertyResolver, ResolvedProperty } from './property-resolver.service';
import { PROPERTY_IDS } from './properties.ids';

/**
 * Property pictures: the service downloads sourceUrl (safely, outside any transaction),
 * keeps its own copy in the blob store and serves it back, behind x-api-key, to the owning account.
 */
@Injectable()
export class PropertyPicturesService implements OnModuleInit {
  private readonly logger = new Logger(PropertyPicturesService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repository: PropertiesRepository,
    private readonly resolver: PropertyResolver,
    private readonly events: EventsService,
    private readonly downloader: SafeDownloader,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A deleted property takes its pictures with it, in the same transaction (one propertyPicture.delete each). */
  onModuleInit(): void {
    this.resolver.onDelete((tx, property) => this.deleteAllOf(tx, property));
  }

  async create(ctx: RequestContext, dto: CreatePropertyPictureDto): Promise<PropertyPictureResponse> {
    // Cheap checks first, so a wrong property or a duplicate never costs a download; plain reads,
    // as the insert's transaction checks both again.
    const found = await this.resolver.lookup(ctx.accountId, dto);
    await this.assertSourceIdFree(this.dataSource.manager, ctx.accountId, found, dto.sourceId);

    // Network I/O with no transaction open.
    const { bytes, contentType } = await this.download(dto.sourceUrl);
    const id = newId(PROPERTY_IDS.picture);
    const storageKey = `pictures/${ctx.accountId}/${id}`;
    await this.blobs.put(storageKey, bytes, contentType);

    let property: ResolvedProperty | undefined;
    try {
      return await this.uow.run(ctx, async (tx) => {
        property = await this.resolver.resolve(tx, dto);
        await this.assertSourceIdFree(tx.manager, ctx.accountId, property, dto.sourceId);
        const values = {
          id,
          accountId: ctx.accountId,
          propertyId: property.propertyId,
          sourceId: dto.sourceId,
          sourceUrl: dto.sourceUrl,
          storageKey,
          contentType,
          byteSize: bytes.length,
        };
        const [row] = await tx.manager
          .createQueryBuilder()
          .insert()
          .into(PropertyPictureEntity)
          .values(values)
          .returning(['created_at'])
          .execute()
          .then((result) => result.raw as Array<{ created_at: Date }>);
        const picture = Object.assign(new PropertyPictureEntity(), values, { createdAt: row.created_at });
        const shape = toPropertyPictureResponse(picture, this.config.publicBaseUrl);
        await this.events.publish(tx, 'propertyPicture.create', [shape]);
        return tx.respond(shape);
      });
    } catch (error) {
      // Nothing references the copy: remove it (best effort; a leftover blob is only wasted space).
      await this.blobs.delete(storageKey).catch((e: Error) => this.logger.warn(`could not delete orphan blob ${storageKey}: ${e.message}`));
      if (property && isUniqueViolation(error, PICTURE_SOURCE_ID_CONSTRAINT)) {
        // A concurrent twin won the race after our pre-check; answer as the pre-check would have.
        const twinId = await this.repository.findPictureIdBySourceId(
          this.dataSource.manager,
          ctx.accountId,
          property.propertyId,
          dto.sourceId,
        );
        throw duplicatePictureSourceId(dto.sourceId, property.propertyId, twinId ?? 'unknown');
      }
      throw error;
    }
  }

  async delete(ctx: RequestContext, pictureId: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const picture = await foundById(PROPERTY_IDS.picture, pictureId, 'Picture', () =>
        tx.manager.findOne(PropertyPictureEntity, {
          where: { accountId: ctx.accountId, id: pictureId },
          lock: { mode: 'pessimistic_write' },
        }),
      );
      await this.remove(tx, [picture]);
    });
  }

  /** GET …/content: the stored copy, for the owning account only; a missing copy is a 404 like a missing row. */
  async content(ctx: RequestContext, pictureId: string): Promise<{ bytes: Buffer; contentType: string }> {
    const picture = isIdOf(PROPERTY_IDS.picture, pictureId)
      ? await this.dataSource.manager.findOne(PropertyPictureEntity, {
          where: { accountId: ctx.accountId, id: pictureId },
          select: { storageKey: true, contentType: true },
        })
      : null;
    const stored = picture ? await this.blobs.get(picture.storageKey) : undefined;
    if (!picture || !stored) throw new NotFoundError('Picture', pictureId);
    return { bytes: stored.bytes, contentType: picture.contentType };
  }

  private async deleteAllOf(tx: Tx, property: ResolvedProperty): Promise<void> {
    await this.remove(tx, await this.repository.lockPictures(tx.manager, tx.ctx.accountId, property.propertyId));
  }

  /** Rows and events now; the stored copies only once the transaction has committed. */
  private async remove(tx: Tx, pictures: PropertyPictureEntity[]): Promise<void> {
    for (const picture of pictures) {
      await tx.manager.delete(PropertyPictureEntity, { accountId: picture.accountId, id: picture.id });
      await this.events.publish(tx, 'propertyPicture.delete', [toPropertyPictureResponse(picture, this.config.publicBaseUrl)]);
      tx.afterCommit(() => this.blobs.delete(picture.storageKey));
    }
  }

  private async assertSourceIdFree(manager: EntityManager, accountId: string, property: ResolvedProperty, sourceId: string): Promise<void> {
    const existingId = await this.repository.findPictureIdBySourceId(manager, accountId, property.propertyId, sourceId);
    if (existingId) throw duplicatePictureSourceId(sourceId, property.propertyId, existingId);
  }

  private async download(sourceUrl: string): Promise<{ bytes: Buffer; contentType: string }> {
    let bytes: Buffer;
    try {
      ({ bytes } = await this.downloader.download(sourceUrl, {
        label: 'the image',
        accept: 'image/jpeg, image/png, image/webp, image/gif',
      }));
    } catch (error) {
      if (error instanceof DownloadError) throw pictureError(error.failure, error.message);
      throw error;
    }
    const contentType = sniffImageType(bytes);
    if (!contentType) throw pictureError('not_an_image', '');
    return { bytes, contentType };
  }
}

function pictureError(failure: PictureFailure, reason: string): DomainError {
  const detail = pictureFailureDetail(failure, reason);
  return new DomainError('invalid', 'pictureDownloadFailed', detail, { failure, errors: [{ pointer: '#/sourceUrl', detail }] });
}
