import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { isUniqueViolation } from '../../platform/database/pg-errors';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { isIdOf, newId } from '../../platform/ids/ids';
import { OutboundUrlPolicy } from '../../platform/net/outbound-url-policy';
import { URL_MAX_LENGTH, UrlPolicyError, urlTooLongMessage } from '../../platform/net/url-policy.rules';
import { Page, unpaginated } from '../../platform/pagination/page';
import { PropertyResolver } from '../properties/property-resolver.service';
import { CalendarFeedEntity } from './calendar-feed.entity';
import { CalendarFeedResponse, toCalendarFeedResponse } from './calendar-feed.response';
import { FEED_DEFAULTS, FEED_LIMITS, normaliseFeedUrl } from './calendar-feed.rules';
import {
  CalendarFeedNotFoundError,
  CalendarFeedUrlError,
  DuplicateCalendarFeedError,
  TooManyCalendarFeedsError,
} from './calendar-feeds.errors';
import { CalendarFeedsRepository, FEED_URL_UNIQUE_INDEX, FeedSettingsChanges } from './calendar-feeds.repository';
import { CalendarSyncQueue } from './calendar-sync-queue.service';
import { CreateCalendarFeedDto } from './dto/create-calendar-feed.dto';
import { UpdateCalendarFeedDto } from './dto/update-calendar-feed.dto';
import { CALENDAR_FEED_IDS } from './calendar-feeds.ids';

/** Calendar feed use cases of the API (issue 14); the sync itself runs in the worker (CalendarSyncService). */
@Injectable()
export class CalendarFeedsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: CalendarFeedsRepository,
    private readonly properties: PropertyResolver,
    private readonly urlPolicy: OutboundUrlPolicy,
    private readonly queue: CalendarSyncQueue,
  ) {}

  /** The feed is due at once: its first sync is queued after commit. */
  async create(ctx: RequestContext, propertyId: string, dto: CreateCalendarFeedDto): Promise<CalendarFeedResponse> {
    await this.properties.lookup(ctx.accountId, { propertyId });
    const url = await this.checkedUrl(dto.url);
    const id = newId(CALENDAR_FEED_IDS.calendarFeed);
    try {
      return await this.uow.run(ctx, async (tx) => {
        const property = await this.properties.resolve(tx, { propertyId });
        // Two creates at once could both count nine: the count and the insert run one at a time per property.
        await this.repository.lockProperty(tx.manager, property.propertyId);
        const existing = await this.repository.listByProperty(ctx.accountId, property.propertyId, tx.manager);
        if (existing.length >= FEED_LIMITS.perProperty) throw new TooManyCalendarFeedsError(property.propertyId);
        const feed = await this.repository.insert(tx.manager, {
          id,
          accountId: ctx.accountId,
          propertyId: property.propertyId,
          url,
          label: dto.label ?? null,
          checkInTime: dto.checkInTime ?? FEED_DEFAULTS.checkInTime,
          checkOutTime: dto.checkOutTime ?? FEED_DEFAULTS.checkOutTime,
          defaultNumberOfGuests: dto.defaultNumberOfGuests ?? FEED_DEFAULTS.defaultNumberOfGuests,
          skipBlocked: dto.skipBlocked ?? FEED_DEFAULTS.skipBlocked,
          status: 'pending',
          lastSyncedAt: null,
          lastError: null,
          lastWarning: null,
          skippedEvents: 0,
          bookingsImported: 0,
          consecutiveFailures: 0,
          etag: null,
          lastModified: null,
          syncClaimedUntil: null,
          syncRequestedAt: null,
        });
        tx.afterCommit(() => this.queue.enqueue([feed.id]));
        return tx.respond(toCalendarFeedResponse(feed));
      });
    } catch (error) {
      if (isUniqueViolation(error, FEED_URL_UNIQUE_INDEX)) {
        throw new DuplicateCalendarFeedError(await this.repository.findIdByUrl(ctx.accountId, propertyId, url));
      }
      throw error;
    }
  }

  /** Unpaginated: a property has at most FEED_LIMITS.perProperty feeds. */
  async listForProperty(ctx: RequestContext, propertyId: string): Promise<Page<CalendarFeedResponse>> {
    const property = await this.properties.lookup(ctx.accountId, { propertyId });
    const rows = await this.repository.listByProperty(ctx.accountId, property.propertyId);
    return unpaginated(rows.map(toCalendarFeedResponse));
  }

  async get(accountId: string, id: string): Promise<CalendarFeedResponse> {
    return toCalendarFeedResponse(await this.mustFind(accountId, id));
  }

  /** Settings apply from the next sync (a changed time moves the stays then, through the dates change). */
  async update(ctx: RequestContext, id: string, dto: UpdateCalendarFeedDto): Promise<CalendarFeedResponse> {
    await this.mustFind(ctx.accountId, id);
    const changes: FeedSettingsChanges = {};
    if (dto.label !== undefined) changes.label = dto.label;
    if (dto.checkInTime !== undefined) changes.checkInTime = dto.checkInTime;
    if (dto.checkOutTime !== undefined) changes.checkOutTime = dto.checkOutTime;
    if (dto.defaultNumberOfGuests !== undefined) changes.defaultNumberOfGuests = dto.defaultNumberOfGuests;
    if (dto.skipBlocked !== undefined) changes.skipBlocked = dto.skipBlocked;
    const updated = await this.repository.update(this.repository.manager, ctx.accountId, id, changes);
    if (!updated) throw new CalendarFeedNotFoundError(id);
    return toCalendarFeedResponse(updated);
  }

  /** The bookings the feed imported stay as they are; nothing syncs them from this feed any more. */
  async remove(accountId: string, id: string): Promise<void> {
    if (!(isIdOf(CALENDAR_FEED_IDS.calendarFeed, id) && (await this.repository.delete(accountId, id))))
      throw new CalendarFeedNotFoundError(id);
  }

  /** 202: the feed is due now and a sync job is queued; the feed's status and lastSyncedAt tell when it ran. */
  async requestSync(accountId: string, id: string): Promise<CalendarFeedResponse> {
    if (!(isIdOf(CALENDAR_FEED_IDS.calendarFeed, id) && (await this.repository.markDueNow(accountId, id))))
      throw new CalendarFeedNotFoundError(id);
    await this.queue.enqueue([id]);
    return toCalendarFeedResponse(await this.mustFind(accountId, id));
  }

  private async mustFind(accountId: string, id: string): Promise<CalendarFeedEntity> {
    const feed = isIdOf(CALENDAR_FEED_IDS.calendarFeed, id) ? await this.repository.find(accountId, id) : null;
    if (!feed) throw new CalendarFeedNotFoundError(id);
    return feed;
  }

  /** The webhooks' outbound URL rules (https, public addresses, DNS); webcal:// is read as https://. */
  private async checkedUrl(raw: string): Promise<string> {
    let url: string;
    try {
      url = (await this.urlPolicy.check(normaliseFeedUrl(raw), { requireHttps: true })).url.href;
    } catch (error) {
      if (error instanceof UrlPolicyError) throw CalendarFeedUrlError.from(error);
      throw error;
    }
    // The DTO counts the url as sent; percent-encoding can make it several times longer, past what the
    // unique (account, property, url) index can hold.
    if (url.length > URL_MAX_LENGTH) throw new CalendarFeedUrlError(urlTooLongMessage(URL_MAX_LENGTH));
    return url;
  }
}
