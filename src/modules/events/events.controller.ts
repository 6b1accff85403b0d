import { Controller, Get, Query } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ListEventsQueryDto } from './dto/list-events.dto';
import { EventsService } from './events.service';
import { RouteDoc, page } from '../../platform/openapi/route-doc';
import { EVENT_SHAPE } from './event.response';

@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @RouteDoc({
    summary: "The account's event feed",
    description:
      'Oldest first; pass the last id seen as after. The backfill source for missed webhooks: every event a subscription could receive is here (test deliveries never are).',
    response: page(EVENT_SHAPE, 'A page of events.'),
    example: { query: { limit: 100 } },
  })
  @Get()
  feed(@Ctx() ctx: RequestContext, @Query() query: ListEventsQueryDto) {
    return this.events.feed(ctx.accountId, query.after, query.limit);
  }
}
