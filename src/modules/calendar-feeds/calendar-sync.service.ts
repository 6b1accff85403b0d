import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RequestContext } from '../../platform/context/request-context';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { DomainError } from '../../platform/errors/domain-error';
import { DownloadError, SafeDownloader } from '../../platform/net/safe-download';
import { BookingResponse } from '../bookings/booking.response';
import { BookingsService } from '../bookings/bookings.service';
import { BOOKING_STATUS } from '../bookings/booking.rules';
import { EventsService } from '../events/events.service';
import { PropertyResolver } from '../properties/property-resolver.service';
import { CalendarFeedEntity } from './calendar-feed.entity';
import { toCalendarFeedResponse } from './calendar-feed.response';
import { afterSync, guestsOf, nextSyncDelayMs, sourceBookingIdOf, titleOf } from './calendar-feed.rules';
import { CalendarFeedEntriesRepository, FeedEntry } from './calendar-feed-entries.repository';
import { CalendarFeedsRepository } from './calendar-feeds.repository';
import { CalendarParseError, CalendarStay, parseCalendar, SkippedEvent } from './calendar-parse.rules';

/** What one call of sync did. */
export type SyncResult =
  | { kind: 'busy' } // another worker holds the feed
  | { kind: 'gone' } // the feed was deleted
  | { kind: 'notModified' }
  | { kind: 'failed'; error: string }
  | { kind: 'synced'; counts: ChangeCounts; skipped: SkippedEvent[]; etag: string | null; lastModified: string | null };

export interface ChangeCounts {
  created: number;
  changed: number;
  cancelled: number;
  linked: number;
}

type Change = keyof ChangeCounts | 'none';

/** How long a claim lasts beyond the download's own time-out (for the writes): a worker that died mid-sync frees its feed then. */
const CLAIM_MARGIN_MS = 2 * 60_000;
/** Skipped events named in lastWarning (the count covers them all). */
const WARNING_EXAMPLES = 3;

/**
 * One feed's sync (worker): claim the feed, conditional GET through the shared safe download, parse
 * with ical.js, then bring the bookings in line through BookingsService (each change one transaction
 * with its events and reminder, as for the API), and record the outcome (with calendarFeed.failing or
 * calendarFeed.recovered when the streak says so). Events whose stay matches the feed's entry cost no
 * transaction, so a second identical sync changes nothing.
 */
@Injectable()
export class CalendarSyncService {
  private readonly logger = new Logger(CalendarSyncService.name);
  private readonly settings: AppConfig['calendar'];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly feeds: CalendarFeedsRepository,
    private readonly entries: CalendarFeedEntriesRepository,
    private readonly bookings: BookingsService,
    private readonly properties: PropertyResolver,
    private readonly events: EventsService,
    private readonly downloader: SafeDownloader,
  ) {
    this.settings = config.calendar;
  }

  /** Syncs the feed now unless another worker is syncing it (then 'busy': at most one sync per feed at a time). */
  async sync(feedId: string): Promise<SyncResult> {
    if (!(await this.feeds.claim(feedId, this.settings.timeoutMs + CLAIM_MARGIN_MS))) {
      return (await this.feeds.findById(feedId)) ? { kind: 'busy' } : { kind: 'gone' };
    }
    let feed: CalendarFeedEntity | null = null;
    try {
      feed = await this.feeds.findById(feedId);
      if (!feed) return { kind: 'gone' };
      const result = await this.run(feed).catch((error: unknown) => ({ kind: 'failed' as const, error: this.hostMessage(feed!, error) }));
      await this.finish(feed, result);
      return result;
    } catch (error) {
      await this.feeds.release(feedId).catch(() => undefined);
      throw error;
    }
  }

  /** Feeds due a sync (the scan), soonest first. */
  async dueFeedIds(limit: number): Promise<string[]> {
    return (await this.feeds.due(limit)).map((feed) => feed.id);
  }

  private async run(feed: CalendarFeedEntity): Promise<SyncResult> {
    const property = await this.properties.lookup(feed.accountId, { propertyId: feed.propertyId });
    const downloaded = await this.downloader.download(feed.url, {
      maxBytes: this.settings.maxBytes,
      timeoutMs: this.settings.timeoutMs,
      requireHttps: true,
      label: 'the calendar',
      accept: 'text/calendar, */*;q=0.1',
      conditional: { etag: feed.etag, lastModified: feed.lastModified },
    });
    if (downloaded.notModified) return { kind: 'notModified' };
    const parsed = parseCalendar(downloaded.bytes.toString('utf8'), {
      timeZone: property.timeZone,
      checkInTime: feed.checkInTime,
      checkOutTime: feed.checkOutTime,
    });
    const { counts, skipped } = await this.apply(feed, property.timeZone, parsed.stays, parsed.skipped);
    return { kind: 'synced', counts, skipped, etag: downloaded.etag ?? null, lastModified: downloaded.lastModified ?? null };
  }

  /** Brings the bookings in line with the calendar's stays; returns what changed and what was skipped. */
  private async apply(
    feed: CalendarFeedEntity,
    timeZone: string,
    stays: CalendarStay[],
    unreadable: SkippedEvent[],
  ): Promise<{ counts: ChangeCounts; skipped: SkippedEvent[] }> {
    const now = Date.now();
    const known = new Map((await this.entries.listByFeed(feed.id)).map((entry) => [entry.uid, entry]));
    const wanted = stays.filter((stay) => !(feed.skipBlocked && stay.blocked));
    const listed = new Set(wanted.map((stay) => stay.uid));
    const counts: ChangeCounts = { created: 0, changed: 0, cancelled: 0, linked: 0 };
    const skipped = [...unreadable];
    const ctx = syncContext(feed);
    const count = (change: Change) => {
      if (change !== 'none') counts[change] += 1;
    };

    for (const stay of wanted) {
      const entry = known.get(stay.uid);
      if (entry && sameStay(entry, stay)) continue;
      // Past stays are history: never imported, and (below) never changed.
      if (!entry && stay.endDate.getTime() <= now) continue;
      try {
        count(await this.uow.run(ctx, (tx) => this.applyStay(tx, feed, timeZone, stay, now)));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        skipped.push({ uid: stay.uid, reason: error.message });
      }
    }
    for (const entry of known.values()) {
      if (!listed.has(entry.uid)) count(await this.uow.run(ctx, (tx) => this.applyRemoval(tx, feed, entry, now)));
    }
    return { counts, skipped };
  }

  /** A listed stay: new (create, or share the booking another feed of the property has for the same stay) or moved. */
  private async applyStay(tx: Tx, feed: CalendarFeedEntity, timeZone: string, stay: CalendarStay, now: number): Promise<Change> {
    await this.feeds.lockProperty(tx.manager, feed.propertyId);
    const entryOf = (bookingId: string): FeedEntry => ({
      feedId: feed.id,
      uid: stay.uid,
      accountId: feed.accountId,
      propertyId: feed.propertyId,
      bookingId,
      startDate: stay.startDate,
      endDate: stay.endDate,
    });
    const entry = await this.entries.find(tx.manager, feed.id, stay.uid);
    if (entry) {
      const booking = await this.bookings.lockForChange(tx, entry.bookingId);
      const change = booking ? await this.moveIfAllowed(tx, booking, stay, now) : 'none';
      await this.entries.upsert(tx.manager, entryOf(entry.bookingId));
      return change;
    }
    for (const bookingId of await this.entries.bookingsOfSameStay(tx.manager, entryOf(''), timeZone)) {
      const booking = await this.bookings.lockForChange(tx, bookingId);
      if (booking && booking.status !== BOOKING_STATUS.cancelled) {
        await this.entries.upsert(tx.manager, entryOf(bookingId));
        return 'linked';
      }
    }
    const sourceBookingId = sourceBookingIdOf(feed.id, stay.uid);
    // The feed's own booking from an earlier listing of this UID (removed, then listed again): linked again as it is.
    const existing = await this.bookings.findBySourceBookingId(tx, sourceBookingId);
    if (existing) {
      await this.entries.upsert(tx.manager, entryOf(existing.bookingId));
      return 'linked';
    }
    const created = await this.bookings.createIn(tx, {
      propertyId: feed.propertyId,
      sourceBookingId,
      startDate: stay.startDate,
      endDate: stay.endDate,
      title: titleOf(stay.summary),
      numberOfGuests: feed.defaultNumberOfGuests,
      guestDetails: guestsOf(stay.summary),
    });
    await this.entries.upsert(tx.manager, entryOf(created.bookingId));
    return 'created';
  }

  /** New dates through the dates change, unless the booking is cancelled, over, or already there. */
  private async moveIfAllowed(tx: Tx, booking: BookingResponse, stay: CalendarStay, now: number): Promise<Change> {
    if (booking.status === BOOKING_STATUS.cancelled || Date.parse(booking.endDate) <= now) return 'none';
    if (Date.parse(booking.startDate) === stay.startDate.getTime() && Date.parse(booking.endDate) === stay.endDate.getTime()) return 'none';
    await this.bookings.changeDatesIn(tx, booking.bookingId, { startDate: stay.startDate, endDate: stay.endDate });
    return 'changed';
  }

  /** A UID no longer listed: its booking is cancelled if no other feed lists it and its stay has not begun. */
  private async applyRemoval(tx: Tx, feed: CalendarFeedEntity, entry: FeedEntry, now: number): Promise<Change> {
    await this.feeds.lockProperty(tx.manager, feed.propertyId);
    await this.entries.delete(tx.manager, feed.id, entry.uid);
    if (await this.entries.isLinked(tx.manager, entry.bookingId)) return 'none';
    const booking = await this.bookings.lockForChange(tx, entry.bookingId);
    if (!booking || booking.status === BOOKING_STATUS.cancelled || Date.parse(booking.startDate) <= now) return 'none';
    await this.bookings.cancelIn(tx, booking.bookingId);
    return 'cancelled';
  }

  /** Records the outcome and gives the claim back, with calendarFeed.failing / .recovered in the same transaction. */
  private async finish(feed: CalendarFeedEntity, result: SyncResult): Promise<void> {
    const transition = afterSync(feed, result.kind === 'synced' || result.kind === 'notModified');
    const success =
      result.kind === 'synced'
        ? {
            lastWarning: warningOf(result.skipped),
            skippedEvents: result.skipped.length,
            bookingsImported: await this.entries.countByFeed(feed.id),
            etag: result.etag,
            lastModified: result.lastModified,
          }
        : result.kind === 'notModified'
          ? {
              lastWarning: feed.lastWarning,
              skippedEvents: feed.skippedEvents,
              bookingsImported: feed.bookingsImported,
              etag: feed.etag,
              lastModified: feed.lastModified,
            }
          : undefined;
    await this.uow.run(syncContext(feed), async (tx) => {
      const updated = await this.feeds.finishSync(tx.manager, feed.id, {
        status: transition.status,
        consecutiveFailures: transition.consecutiveFailures,
        lastError: result.kind === 'failed' ? result.error : null,
        success,
        nextSyncInMs: nextSyncDelayMs(this.settings.syncIntervalMs, Math.random()),
      });
      if (updated && transition.event) await this.events.publish(tx, transition.event, [toCalendarFeedResponse(updated)]);
    });
  }

  /** lastError as a host can act on it; anything unexpected is logged and shown as ours. */
  private hostMessage(feed: CalendarFeedEntity, error: unknown): string {
    if (error instanceof DownloadError) return `The calendar could not be downloaded: ${error.message}`;
    if (error instanceof CalendarParseError) return `The calendar could not be read: ${error.message}`;
    if (error instanceof DomainError) return error.message;
    this.logger.error({ feedId: feed.id, accountId: feed.accountId, error: (error as Error)?.message }, 'calendar sync failed');
    return 'The sync failed on our side; it is tried again at the next sync';
  }
}

function syncContext(feed: CalendarFeedEntity): RequestContext {
  return { accountId: feed.accountId, requestId: `sync_${feed.id}`, clientRequestId: `sync_${feed.id}` };
}

function sameStay(entry: FeedEntry, stay: CalendarStay): boolean {
  return entry.startDate.getTime() === stay.startDate.getTime() && entry.endDate.getTime() === stay.endDate.getTime();
}

function warningOf(skipped: SkippedEvent[]): string | null {
  if (skipped.length === 0) return null;
  const examples = skipped.slice(0, WARNING_EXAMPLES).map((event) => `${event.uid ? `UID ${event.uid}` : 'an event'}: ${event.reason}`);
  const more = skipped.length > WARNING_EXAMPLES ? `; and ${skipped.length - WARNING_EXAMPLES} more` : '';
  return `${skipped.length} event(s) skipped (${examples.join('; ')}${more})`;
}
