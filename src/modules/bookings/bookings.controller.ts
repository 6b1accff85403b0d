import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { PostAction, PostCreate } from '../../platform/http/post-routes';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { BookingsService } from './bookings.service';
import { ChangeBookingDatesDto } from './dto/change-booking-dates.dto';
import { CreateBookingDto } from './dto/create-booking.dto';
import { ListBookingsQueryDto } from './dto/list-bookings.dto';
import { UpdateBookingDto } from './dto/update-booking.dto';
import { RouteDoc, none, ok, page } from '../../platform/openapi/route-doc';
import { BOOKING_EXAMPLES } from './bookings.declaration';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';
import { BOOKING_SHAPE } from './booking.response';

@Controller('v1/bookings')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @RouteDoc({
    summary: 'Create a booking',
    description:
      'Triggers the scheduling automation (a turnover reminder at check-out, unless the property disables it). A sourceBookingId already used by the account is a 409 conflict carrying the existing bookingId.',
    response: ok(BOOKING_SHAPE, 'The created booking (status 1).'),
    problems: [404, 409],
    example: { body: BOOKING_EXAMPLES.bookingBody },
  })
  @PostCreate()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateBookingDto) {
    return this.bookings.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'List bookings overlapping a window',
    description:
      'Every booking arriving before dateTo and leaving after dateFrom (ISO 8601 date-times with a zone), cancelled ones included unless filtered by status (1 created, 2 dates changed, 3 cancelled); optionally of one property; by startDate.',
    response: page(BOOKING_SHAPE, 'A page of bookings.'),
    example: { query: { dateFrom: '2030-07-01T00:00:00Z', dateTo: '2030-08-01T00:00:00Z', propertyId: PROPERTY_EXAMPLES.propertyId } },
  })
  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListBookingsQueryDto) {
    return this.bookings.list(ctx.accountId, query);
  }

  @RouteDoc({
    summary: 'Get a booking',
    description: 'One booking by its bookingId, cancelled ones included.',
    response: ok(BOOKING_SHAPE, 'The booking.'),
  })
  @Get(':bookingId')
  get(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string) {
    return this.bookings.get(ctx.accountId, bookingId);
  }

  @RouteDoc({
    summary: 'Update a booking',
    description:
      'Any of title, numberOfGuests, guestDetails, tags and otherAttributes (null clears an optional one); the dates change through …/dates. Emits booking.update when something changed.',
    response: ok(BOOKING_SHAPE, 'The updated booking.'),
    problems: [409],
    example: { body: { numberOfGuests: 3, title: 'Family stay' } },
  })
  @Patch(':bookingId')
  update(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string, @Body() dto: UpdateBookingDto) {
    return this.bookings.update(ctx, bookingId, dto);
  }

  @RouteDoc({
    summary: "Change a booking's dates",
    description: 'Status 2; the turnover reminder moves with the check-out.',
    response: ok(BOOKING_SHAPE, 'The booking with its new dates.'),
    problems: [409],
    example: { body: { startDate: '2030-07-11T15:00:00Z', endDate: '2030-07-16T10:00:00Z' } },
  })
  @Patch(':bookingId/dates')
  changeDates(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string, @Body() dto: ChangeBookingDatesDto) {
    return this.bookings.changeDates(ctx, bookingId, dto);
  }

  @RouteDoc({
    summary: 'Cancel a booking',
    description: 'Status 3; stays in lists unless filtered by status. Its turnover reminder is removed. Cancelling again changes nothing.',
    response: ok(BOOKING_SHAPE, 'The cancelled booking.'),
    problems: [409],
  })
  @PostAction(':bookingId/cancel')
  cancel(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string) {
    return this.bookings.cancel(ctx, bookingId);
  }

  @RouteDoc({
    summary: 'Delete a booking',
    description: 'Removes the booking and its automatic turnover reminder; emits booking.delete. Cancelling keeps it listed instead.',
    response: none(),
  })
  @Delete(':bookingId')
  async delete(@Ctx() ctx: RequestContext, @Param('bookingId') bookingId: string): Promise<void> {
    await this.bookings.delete(ctx, bookingId);
  }
}
