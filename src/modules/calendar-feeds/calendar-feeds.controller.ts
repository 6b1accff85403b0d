import { Body, Controller, Delete, Get, Param, Patch } from '@nestjs/common';
import { PostCreate, PostQueued } from '../../platform/http/post-routes';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { CalendarFeedsService } from './calendar-feeds.service';
import { CreateCalendarFeedDto } from './dto/create-calendar-feed.dto';
import { UpdateCalendarFeedDto } from './dto/update-calendar-feed.dto';
import { RouteDoc, none, ok, page } from '../../platform/openapi/route-doc';
import { CALENDAR_FEED_EXAMPLES } from './calendar-feeds.declaration';
import { CALENDAR_FEED_SHAPE } from './calendar-feed.response';

/** Calendar feeds (issue 14, docs/calendar-feeds.md): iCal links synced into a property's bookings. */
@Controller('v1')
export class CalendarFeedsController {
  constructor(private readonly feeds: CalendarFeedsService) {}

  @RouteDoc({
    summary: "Add a listing's iCal link to a property",
    description:
      'Calendar feeds are an extension of the spec (docs/calendar-feeds.md). url: the iCal export link of an Airbnb, Vrbo or Booking.com listing (or any RFC 5545 calendar); https, a domain name resolving to public addresses only (400 invalidCalendarFeedUrl); webcal:// is read as https://. At most 10 feeds per property and one per url (409). The first sync is queued at once; then every CALENDAR_SYNC_INTERVAL_MS. Each event becomes a booking with sourceBookingId ical:<feedId>:<UID>.',
    response: ok(CALENDAR_FEED_SHAPE, 'The feed, status pending until its first sync.'),
    problems: [409],
    example: {
      body: {
        url: CALENDAR_FEED_EXAMPLES.calendarFeedUrl,
        label: 'Airbnb',
        checkInTime: '16:00',
        checkOutTime: '11:00',
        defaultNumberOfGuests: 2,
      },
    },
  })
  @PostCreate('properties/:propertyId/calendarFeeds')
  create(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string, @Body() dto: CreateCalendarFeedDto) {
    return this.feeds.create(ctx, propertyId, dto);
  }

  @RouteDoc({
    summary: "A property's calendar feeds",
    description: 'Unpaginated (at most 10), in creation order.',
    response: page(CALENDAR_FEED_SHAPE, 'Every feed of the property.'),
  })
  @Get('properties/:propertyId/calendarFeeds')
  list(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.feeds.listForProperty(ctx, propertyId);
  }

  @RouteDoc({
    summary: 'Get a calendar feed',
    description: 'status, lastSyncedAt, lastError and lastWarning tell how its syncs go.',
    response: ok(CALENDAR_FEED_SHAPE, 'The feed.'),
  })
  @Get('calendarFeeds/:calendarFeedId')
  get(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string) {
    return this.feeds.get(ctx.accountId, id);
  }

  @RouteDoc({
    summary: 'Update a calendar feed',
    description:
      'label (null clears it), checkInTime, checkOutTime, defaultNumberOfGuests, skipBlocked; applied from the next sync (new times move the future stays through the dates change). The url is fixed: add a feed for a new link.',
    response: ok(CALENDAR_FEED_SHAPE, 'The updated feed.'),
    example: { body: { label: 'Airbnb (main listing)', checkInTime: '15:00' } },
  })
  @Patch('calendarFeeds/:calendarFeedId')
  update(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string, @Body() dto: UpdateCalendarFeedDto) {
    return this.feeds.update(ctx, id, dto);
  }

  @RouteDoc({
    summary: 'Delete a calendar feed',
    description: 'The bookings it imported stay as they are; nothing syncs them from this feed any more.',
    response: none(),
  })
  @Delete('calendarFeeds/:calendarFeedId')
  async remove(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string): Promise<void> {
    await this.feeds.remove(ctx.accountId, id);
  }

  @RouteDoc({
    summary: 'Sync a calendar feed now',
    description: 'Queues a sync; status, lastSyncedAt and lastError on the feed tell when it ran and how it went.',
    response: ok(CALENDAR_FEED_SHAPE, 'The feed as it is now; the sync runs in the worker.'),
  })
  @PostQueued('calendarFeeds/:calendarFeedId/sync')
  sync(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string) {
    return this.feeds.requestSync(ctx.accountId, id);
  }
}
