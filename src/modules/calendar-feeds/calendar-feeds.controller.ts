import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Idempotent } from '../../platform/http/idempotency.interceptor';
import { Ctx } from '../../platform/http/request-context';
import { CalendarFeedsService } from './calendar-feeds.service';
import { CreateCalendarFeedDto } from './dto/create-calendar-feed.dto';
import { UpdateCalendarFeedDto } from './dto/update-calendar-feed.dto';

/** Calendar feeds (issue 14, docs/calendar-feeds.md): iCal links synced into a property's bookings. */
@Controller('v1')
export class CalendarFeedsController {
  constructor(private readonly feeds: CalendarFeedsService) {}

  @Post('properties/:propertyId/calendarFeeds')
  @Idempotent()
  create(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string, @Body() dto: CreateCalendarFeedDto) {
    return this.feeds.create(ctx, propertyId, dto);
  }

  @Get('properties/:propertyId/calendarFeeds')
  list(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.feeds.listForProperty(ctx, propertyId);
  }

  @Get('calendarFeeds/:calendarFeedId')
  get(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string) {
    return this.feeds.get(ctx.accountId, id);
  }

  @Patch('calendarFeeds/:calendarFeedId')
  update(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string, @Body() dto: UpdateCalendarFeedDto) {
    return this.feeds.update(ctx, id, dto);
  }

  @Delete('calendarFeeds/:calendarFeedId')
  @HttpCode(204)
  async remove(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string): Promise<void> {
    await this.feeds.remove(ctx.accountId, id);
  }

  @Post('calendarFeeds/:calendarFeedId/sync')
  @HttpCode(202)
  sync(@Ctx() ctx: RequestContext, @Param('calendarFeedId') id: string) {
    return this.feeds.requestSync(ctx.accountId, id);
  }
}
