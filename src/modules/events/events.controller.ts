import { Controller, Get, Query } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ListEventsQueryDto } from './dto/list-events.dto';
import { EventsService } from './events.service';

@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  feed(@Ctx() ctx: RequestContext, @Query() query: ListEventsQueryDto) {
    return this.events.feed(ctx.accountId, query.after, query.limit);
  }
}
