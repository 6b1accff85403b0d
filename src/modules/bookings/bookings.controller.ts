import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Idempotent } from '../../platform/http/idempotency.interceptor';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { BookingsService } from './bookings.service';
import { ChangeBookingDatesDto } from './dto/change-booking-dates.dto';
import { CreateBookingDto } from './dto/create-booking.dto';
import { ListBookingsQueryDto } from './dto/list-bookings.dto';
import { UpdateBookingDto } from './dto/update-booking.dto';

@Controller('v1/bookings')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @Post()
  @Idempotent()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateBookingDto) {
    return this.bookings.create(ctx, dto);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListBookingsQueryDto) {
    return this.bookings.list(ctx.accountId, query);
  }

  @Get(':bookingId')
  get(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string) {
    return this.bookings.get(ctx.accountId, bookingId);
  }

  @Patch(':bookingId')
  update(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string, @Body() dto: UpdateBookingDto) {
    return this.bookings.update(ctx, bookingId, dto);
  }

  @Patch(':bookingId/dates')
  changeDates(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string, @Body() dto: ChangeBookingDatesDto) {
    return this.bookings.changeDates(ctx, bookingId, dto);
  }

  @Post(':bookingId/cancel')
  @HttpCode(200)
  cancel(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string) {
    return this.bookings.cancel(ctx, bookingId);
  }

  @Delete(':bookingId')
  @HttpCode(204)
  async delete(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string): Promise<void> {
    await this.bookings.delete(ctx, bookingId);
  }
}
