import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { CreateReminderDto } from './dto/create-reminder.dto';
import { ListRemindersQueryDto } from './dto/list-reminders.dto';
import { RemindersService } from './reminders.service';

@Controller('v1/reminders')
export class RemindersController {
  constructor(private readonly reminders: RemindersService) {}

  @Post()
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateReminderDto) {
    return this.reminders.create(ctx, dto);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListRemindersQueryDto) {
    return this.reminders.list(ctx.accountId, query);
  }

  @Get(':reminderId')
  get(@Ctx() ctx: RequestContext, @Param('reminderId') reminderId: string) {
    return this.reminders.get(ctx.accountId, reminderId);
  }

  @Delete(':reminderId')
  @HttpCode(204)
  async delete(@Ctx() ctx: RequestContext, @Param('reminderId') reminderId: string): Promise<void> {
    await this.reminders.delete(ctx, reminderId);
  }
}
