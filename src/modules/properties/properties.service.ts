import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { isUniqueViolation } from '../../platform/database/pg-errors';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { NotFoundError } from '../../platform/errors/domain-error';
import { RequestContext } from '../../platform/context/request-context';
import { isIdOf, newId } from '../../platform/ids/ids';
import { CursorCodec, InvalidCursorError } from '../../platform/pagination/cursor';
import { Page, toPage } from '../../platform/pagination/page';
import { EventsService } from '../events/events.service';
import { ADDRESS_RESOLVER, AddressInput, AddressResolver } from './address-resolver';
import { CreatePropertyDto } from './dto/create-property.dto';
import { UpdatePropertyDto } from './dto/update-property.dto';
import { duplicatePropertySourceId, PROPERTY_SOURCE_ID_CONSTRAINT } from './properties.errors';
import { PropertiesRepository, PropertyFilter, PropertyWithPictures } from './properties.repository';
import { PropertyReference, PropertyResolver } from './property-resolver.service';
import { PropertyEntity } from './property.entity';
import { toPropertyResponse, PropertyResponse } from './property.response';
import { applyDetails, DetailsInput } from './property.rules';
import { PROPERTY_IDS } from './properties.ids';

const CURSOR_SCOPE = 'properties';

/** Property use cases: each write is one transaction with its event (and idempotency record). */
@Injectable()
export class PropertiesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: PropertiesRepository,
    private readonly resolver: PropertyResolver,
    private readonly events: EventsService,
    private readonly cursors: CursorCodec,
    @Inject(ADDRESS_RESOLVER) private readonly addresses: AddressResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(ctx: RequestContext, dto: CreatePropertyDto): Promise<PropertyResponse> {
    const location = { latitude: dto.location.latitude, longitude: dto.location.longitude };
    // Derived before the transaction opens: a geocoder may be slow.
    const address = await this.addresses.resolve({ countryCode: dto.countryCode, timeZone: dto.timeZone, ...location });
    const { details, disableRemindersAutomation } = applyDetails({ details: null, disableRemindersAutomation: false }, dto.details);
    return this.guardSourceId(ctx, dto.sourceId, () =>
      this.uow.run(ctx, async (tx) => {
        await this.assertSourceIdFree(tx, dto.sourceId);
        const id = newId(PROPERTY_IDS.property);
        await tx.manager.insert(PropertyEntity, {
          id,
          accountId: ctx.accountId,
          sourceId: dto.sourceId,
          name: dto.name,
          countryCode: dto.countryCode,
          timeZone: dto.timeZone,
          ...location,
          address,
          type: dto.type ?? null,
          beds: dto.beds,
          bedrooms: dto.bedrooms,
          bathrooms: dto.bathrooms,
          tags: dto.tags ?? null,
          bedDetails: dto.bedDetails ? plain(dto.bedDetails) : null,
          details: details ? plain(details) : null,
          disableRemindersAutomation,
          pictureUrl: dto.pictureUrl ?? null,
        });
        const shape = await this.readShape(tx, id);
        await this.events.publish(tx, 'property.create', [shape]);
        return tx.respond(shape);
      }),
    );
  }

  /** A keyset page by id; with a filter, the cursor carries it, so a page of another filter's cursor is a 400 invalidCursor. */
  async list(accountId: string, cursor: string | undefined, limit: number, filter: PropertyFilter = {}): Promise<Page<PropertyResponse>> {
    const filterKey = filter.name === undefined && filter.sourceId === undefined ? [] : [filter.name ?? '', filter.sourceId ?? ''];
    let afterId: string | undefined;
    if (cursor !== undefined) {
      const [id, ...rest] = this.cursors.decode(CURSOR_SCOPE, cursor);
      if (typeof id !== 'string' || JSON.stringify(rest) !== JSON.stringify(filterKey)) throw new InvalidCursorError();
      afterId = id;
    }
    const rows = await this.repository.listPage(accountId, afterId, limit + 1, filter);
    return toPage(
      rows,
      limit,
      (row) => this.toResponse(row),
      (row) => this.cursors.encode(CURSOR_SCOPE, [row.id, ...filterKey]),
    );
  }

  async get(accountId: string, propertyId: string): Promise<PropertyResponse> {
    const property = isIdOf(PROPERTY_IDS.property, propertyId) ? await this.repository.findWithPictures(accountId, propertyId) : undefined;
    if (!property) throw new NotFoundError('Property', propertyId);
    return this.toResponse(property);
  }

  async update(ctx: RequestContext, propertyId: string, dto: UpdatePropertyDto): Promise<PropertyResponse> {
    const touchesAddress = dto.countryCode !== undefined || dto.location !== undefined || dto.timeZone !== undefined;
    // The address is derived outside the transaction from the row as it is now; re-derived inside only if a concurrent update moved it.
    let derived: { from: AddressInput; address: string | null } | undefined;
    if (touchesAddress) {
      const current = isIdOf(PROPERTY_IDS.property, propertyId)
        ? await this.repository.findOne(this.readManager(), ctx.accountId, propertyId)
        : null;
      if (!current) throw new NotFoundError('Property', propertyId);
      const from = addressInput(current, dto);
      derived = { from, address: await this.addresses.resolve(from) };
    }

    return this.guardSourceId(ctx, dto.sourceId, () =>
      this.uow.run(ctx, async (tx) => {
        // A new sourceId changes the key dependents resolve by: FOR UPDATE at once, so the PATCH waits for a dependent
        // holding the row (FOR KEY SHARE) before it holds anything a dependent may then ask for (a job request's
        // details take FOR NO KEY UPDATE after their key share); taking it only at the UPDATE deadlocks with them.
        const current = await this.lock(tx, propertyId, dto.sourceId === undefined ? 'noKeyUpdate' : 'update');
        if (dto.sourceId !== undefined && dto.sourceId !== current.sourceId) await this.assertSourceIdFree(tx, dto.sourceId);
        const changes: Partial<PropertyEntity> = {};
        if (dto.sourceId !== undefined) changes.sourceId = dto.sourceId;
        if (dto.name !== undefined) changes.name = dto.name;
        if (dto.countryCode !== undefined) changes.countryCode = dto.countryCode;
        if (dto.timeZone !== undefined) changes.timeZone = dto.timeZone;
        if (dto.location !== undefined) Object.assign(changes, { latitude: dto.location.latitude, longitude: dto.location.longitude });
        if (dto.beds !== undefined) changes.beds = dto.beds;
        if (dto.bedrooms !== undefined) changes.bedrooms = dto.bedrooms;
        if (dto.bathrooms !== undefined) changes.bathrooms = dto.bathrooms;
        if (dto.type !== undefined) changes.type = dto.type;
        if (dto.tags !== undefined) changes.tags = dto.tags;
        if (dto.bedDetails !== undefined) changes.bedDetails = dto.bedDetails ? plain(dto.bedDetails) : null;
        if (dto.pictureUrl !== undefined) changes.pictureUrl = dto.pictureUrl;
        if (dto.details !== undefined) {
          const next = applyDetails(current, dto.details);
          changes.details = next.details ? plain(next.details) : null;
          changes.disableRemindersAutomation = next.disableRemindersAutomation;
        }
        if (derived) {
          const from = addressInput(current, dto);
          changes.address = sameAddressInput(from, derived.from) ? derived.address : await this.addresses.resolve(from);
        }
        // An empty body changes nothing: no write, no event, updatedAt stays (as for checklists).
        if (Object.keys(changes).length === 0) return this.readShape(tx, current.id);
        await tx.manager.update(PropertyEntity, { accountId: ctx.accountId, id: current.id }, { ...changes, updatedAt: () => 'now()' });
        const shape = await this.readShape(tx, current.id);
        await this.events.publish(tx, 'property.update', [shape]);
        return shape;
      }),
    );
  }

  /**
   * Deletes the property and what hangs off it, in one transaction: the row is locked
   * FOR UPDATE (so dependents being created wait, then see a 404), the dependents'
   * deletion hooks run (pictures, checklists; later bookings/jobs may refuse with 409),
   * then the row goes and property.delete carries the shape as it was. The shape is read
   * once the pictures are locked too: a picture being deleted by its own route meanwhile
   * is then either gone from it or still there for this delete to take (never both).
   */
  async delete(ctx: RequestContext, propertyId: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const property = await this.lock(tx, propertyId, 'update');
      await this.repository.lockPictures(tx.manager, ctx.accountId, property.id);
      const shape = await this.readShape(tx, property.id);
      await this.resolver.runDeletionHooks(tx, { propertyId: property.id, sourceId: property.sourceId });
      await tx.manager.delete(PropertyEntity, { accountId: ctx.accountId, id: property.id });
      await this.events.publish(tx, 'property.delete', [shape]);
    });
  }

  /**
   * For job requests (spec 2.6 job property): the property a dependent names, resolved like every
   * dependent does, with the job's detail fields merged into the property's details in the caller's
   * transaction (and property.update, as PATCH /v1/properties with those details would write).
   */
  async resolveForJob(tx: Tx, ref: PropertyReference, details?: DetailsInput): Promise<PropertyResponse> {
    const { propertyId } = await this.resolver.resolve(tx, ref);
    if (!details || Object.values(details).every((value) => value === undefined)) return this.readShape(tx, propertyId);
    const current = await this.lock(tx, propertyId, 'noKeyUpdate');
    const next = applyDetails(current, details);
    await tx.manager.update(
      PropertyEntity,
      { accountId: tx.ctx.accountId, id: propertyId },
      { details: next.details ? plain(next.details) : null, updatedAt: () => 'now()' },
    );
    const shape = await this.readShape(tx, propertyId);
    await this.events.publish(tx, 'property.update', [shape]);
    return shape;
  }

  private async lock(tx: Tx, propertyId: string, mode: 'update' | 'noKeyUpdate'): Promise<PropertyEntity> {
    const property = isIdOf(PROPERTY_IDS.property, propertyId)
      ? await this.repository.findOne(tx.manager, tx.ctx.accountId, propertyId, mode)
      : null;
    if (!property) throw new NotFoundError('Property', propertyId);
    return property;
  }

  private async readShape(tx: Tx, propertyId: string): Promise<PropertyResponse> {
    const property = await this.repository.findWithPicturesIn(tx.manager, tx.ctx.accountId, propertyId);
    if (!property) throw new NotFoundError('Property', propertyId);
    return this.toResponse(property);
  }

  private toResponse(property: PropertyWithPictures): PropertyResponse {
    return toPropertyResponse(
      property,
      property.pictureIds.map((id) => ({ id })),
      this.config.publicBaseUrl,
    );
  }

  private async assertSourceIdFree(tx: Tx, sourceId: string): Promise<void> {
    const existingId = await this.repository.findIdBySourceId(tx.manager, tx.ctx.accountId, sourceId);
    if (existingId) throw duplicatePropertySourceId(sourceId, existingId);
  }

  /** The pre-check inside the transaction answers almost always; a concurrent twin is caught by the unique index. */
  private async guardSourceId<T>(ctx: RequestContext, sourceId: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (sourceId === undefined || !isUniqueViolation(error, PROPERTY_SOURCE_ID_CONSTRAINT)) throw error;
      const existingId = await this.repository.findIdBySourceId(this.readManager(), ctx.accountId, sourceId);
      throw duplicatePropertySourceId(sourceId, existingId ?? 'unknown');
    }
  }

  private readManager() {
    return this.repository.manager;
  }
}

function addressInput(current: PropertyEntity, dto: UpdatePropertyDto): AddressInput {
  return {
    countryCode: dto.countryCode ?? current.countryCode,
    timeZone: dto.timeZone ?? current.timeZone,
    latitude: dto.location?.latitude ?? current.latitude,
    longitude: dto.location?.longitude ?? current.longitude,
  };
}

function sameAddressInput(a: AddressInput, b: AddressInput): boolean {
  return a.countryCode === b.countryCode && a.timeZone === b.timeZone && a.latitude === b.latitude && a.longitude === b.longitude;
}

/** DTO instances to plain JSON for jsonb columns (drops undefined members). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
