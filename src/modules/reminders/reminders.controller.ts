import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { CreateReminderDto } from './dto/create-reminder.dto';
import { ListRemindersQueryDto } from './dto/list-reminders.dto';
import { RemindersService } from './reminders.service';
import { RouteDoc, none, ok, page } from '../../platform/openapi/route-doc';
import { REMINDER_EXAMPLES } from './reminders.declaration';
import { REMINDER_SHAPE } from './reminder.response';

@Controller('v1/reminders')
export class RemindersController {
  constructor(private readonly reminders: RemindersService) {}

  @RouteDoc({
    summary: 'Create a reminder',
    description:
      'A reminder on a property (propertyId or sourcePropertyId) for a date; at that date the worker emits reminder.due. Emits reminder.create.',
    response: ok(REMINDER_SHAPE, 'The created reminder.'),
    problems: [404],
    example: { body: REMINDER_EXAMPLES.reminderBody },
  })
  @Post()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateReminderDto) {
    return this.reminders.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'List reminders in a window',
    description:
      "The account's reminders dated between dateFrom and dateTo (ISO 8601 date-times with a zone), the bookings' automatic turnover reminders included; by date, ties by id.",
    response: page(REMINDER_SHAPE, 'A page of reminders, by date.'),
    example: { query: { dateFrom: '2030-07-01T00:00:00Z', dateTo: '2030-08-01T00:00:00Z' } },
  })
  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListRemindersQueryDto) {
    return this.reminders.list(ctx.accountId, query);
  }

  @RouteDoc({
    summary: 'Get a reminder',
    description: 'One reminder by its reminderId, with firedAt once its date came.',
    response: ok(REMINDER_SHAPE, 'The reminder.'),
  })
  @Get(':reminderId')
  get(@Ctx() ctx: RequestContext, @Param('reminderId') reminderId: string) {
    return this.reminders.get(ctx.accountId, reminderId);
  }

  @RouteDoc({
    summary: 'Delete a reminder',
    description: 'Removes the reminder (it will not come due); emits reminder.delete.',
    response: none(),
  })
  @Delete(':reminderId')
  async delete(@Ctx() ctx: RequestContext, @Param('reminderId') reminderId: string): Promise<void> {
    await this.reminders.delete(ctx, reminderId);
  }
}
