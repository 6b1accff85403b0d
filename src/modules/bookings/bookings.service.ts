import { Injectable, OnModuleInit } from '@nestjs/common';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { NotFoundError } from '../../platform/errors/domain-error';
import { RequestContext } from '../../platform/context/request-context';
import { isIdOf, newId } from '../../platform/ids/ids';
import { CursorCodec, dateIdKeyOf } from '../../platform/pagination/cursor';
import { dateWindowOf } from '../../platform/pagination/date-window';
import { Page, toPage } from '../../platform/pagination/page';
import { EventsService } from '../events/events.service';
import { PropertyResolver, ResolvedProperty, ResolvedPropertyWithSettings } from '../properties/property-resolver.service';
import { ReminderAutomation } from '../reminders/reminder-automation.service';
import { BookingEntity, StoredGuest } from './booking.entity';
import { BookingResponse, toBookingResponse } from './booking.response';
import { BOOKING_STATUS, isCancelled, Stay, statusAfterDateChange, stayOf, storedGuests } from './booking.rules';
import { duplicateSourceBookingId, propertyHasActiveBookings } from './bookings.errors';
import { BookingChanges, BookingListFilter, BookingsRepository } from './bookings.repository';
import { ChangeBookingDatesDto } from './dto/change-booking-dates.dto';
import { CreateBookingDto } from './dto/create-booking.dto';
import { ListBookingsQueryDto } from './dto/list-bookings.dto';
import { UpdateBookingDto } from './dto/update-booking.dto';
import type { EventsCarrying } from '../events/event-catalogue';
import { BOOKING_IDS } from './bookings.ids';

/** A booking a calendar feed writes (issue 14): the stay already checked (end after start). */
export interface ImportedBooking extends Stay {
  propertyId: string;
  sourceBookingId: string;
  title: string | null;
  numberOfGuests: number;
  guestDetails: StoredGuest[];
}

/**
 * Booking use cases (spec 2.4, 3.1, 4.5). Each write is one transaction with its event (and, on
 * create, the Idempotency-Key record); reads are plain reads.
 */
@Injectable()
export class BookingsService implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: BookingsRepository,
    private readonly resolver: PropertyResolver,
    private readonly events: EventsService,
    private readonly cursors: CursorCodec,
    private readonly automation: ReminderAutomation,
  ) {}

  /** Property deletion refuses while stays are ahead, otherwise takes the property's bookings with it. */
  onModuleInit(): void {
    this.resolver.onDelete((tx, property) => this.deleteForProperty(tx, property));
  }

  async create(ctx: RequestContext, dto: CreateBookingDto): Promise<BookingResponse> {
    const stay = stayOf(dto.startDate, dto.endDate);
    return this.uow.run(ctx, async (tx) => {
      const property = await this.resolver.resolve(tx, dto);
      const shape = await this.insert(tx, property, {
        sourceBookingId: dto.sourceBookingId,
        ...stay,
        title: dto.title ?? null,
        numberOfGuests: dto.numberOfGuests,
        guestDetails: storedGuests(dto.guestDetails),
        tags: dto.tags ?? null,
        otherAttributes: dto.otherAttributes ? plain(dto.otherAttributes) : null,
      });
      return tx.respond(shape);
    });
  }

  /**
   * For calendar feeds: a booking created in the caller's transaction exactly as POST /v1/bookings
   * creates one (booking.create, the automatic reminder), from values the feed already checked
   * (the stay's end after its start). 409 when the sourceBookingId is taken.
   */
  async createIn(tx: Tx, input: ImportedBooking): Promise<BookingResponse> {
    const { propertyId, ...fields } = input;
    const property = await this.resolver.resolve(tx, { propertyId });
    return this.insert(tx, property, { ...fields, tags: null, otherAttributes: null });
  }

  private async insert(
    tx: Tx,
    property: ResolvedPropertyWithSettings,
    fields: Omit<BookingEntity, 'id' | 'accountId' | 'propertyId' | 'status' | 'createdAt' | 'updatedAt'>,
  ): Promise<BookingResponse> {
    const booking = await this.repository.insertUnlessSourceTaken(tx.manager, {
      id: newId(BOOKING_IDS.booking),
      accountId: tx.ctx.accountId,
      propertyId: property.propertyId,
      status: BOOKING_STATUS.created,
      ...fields,
    });
    if (!booking) {
      // Taken before, or by a concurrent twin that committed while the insert waited: this statement sees it.
      const existing = await this.repository.findBySourceBookingId(tx.manager, tx.ctx.accountId, fields.sourceBookingId);
      throw duplicateSourceBookingId(fields.sourceBookingId, existing?.id ?? 'unknown');
    }
    const shape = await this.publish(tx, 'booking.create', booking);
    // The scheduling automation (spec 1): the turnover reminder at check-out, in this transaction.
    if (!property.disableRemindersAutomation) await this.automation.createForBooking(tx, booking);
    return shape;
  }

  async get(accountId: string, bookingId: string): Promise<BookingResponse> {
    const booking = isIdOf(BOOKING_IDS.booking, bookingId)
      ? await this.repository.findOne(this.repository.manager, accountId, bookingId)
      : undefined;
    if (!booking) throw new NotFoundError('Booking', bookingId);
    return toBookingResponse(booking);
  }

  async list(accountId: string, query: ListBookingsQueryDto): Promise<Page<BookingResponse>> {
    const window = dateWindowOf(query.dateFrom, query.dateTo);
    const filter: BookingListFilter = { window, status: query.status, propertyId: query.propertyId };
    // A cursor belongs to one query: reusing it with another window or filter is a 400, not a confusing page.
    const scope = ['bookings', window.from.toISOString(), window.to.toISOString(), query.status ?? '', query.propertyId ?? ''].join('\n');
    if (query.cursor !== undefined) {
      const { at, id } = dateIdKeyOf(this.cursors.decode(scope, query.cursor));
      filter.after = { startDate: at, id };
    }
    const rows = await this.repository.listPage(accountId, filter, query.limit + 1);
    return toPage(rows, query.limit, toBookingResponse, (row) => this.cursors.encode(scope, [row.startDate.toISOString(), row.id]));
  }

  /** An empty body changes nothing: the booking comes back as it is and no event is written. */
  async update(ctx: RequestContext, bookingId: string, dto: UpdateBookingDto): Promise<BookingResponse> {
    return this.uow.run(ctx, async (tx) => {
      const current = await this.lockOwn(tx, bookingId);
      const changes: BookingChanges = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.numberOfGuests !== undefined) changes.numberOfGuests = dto.numberOfGuests;
      if (dto.guestDetails !== undefined) changes.guestDetails = storedGuests(dto.guestDetails);
      if (dto.tags !== undefined) changes.tags = dto.tags;
      if (dto.otherAttributes !== undefined) changes.otherAttributes = dto.otherAttributes ? plain(dto.otherAttributes) : null;
      if (Object.keys(changes).length === 0) return toBookingResponse(current);
      const updated = await this.repository.update(tx.manager, ctx.accountId, current.id, changes);
      return this.publish(tx, 'booking.update', updated);
    });
  }

  /** Spec 3.1: valid dates → status 2 (dates changed), from any status but cancelled (409 invalidState). */
  async changeDates(ctx: RequestContext, bookingId: string, dto: ChangeBookingDatesDto): Promise<BookingResponse> {
    const stay = stayOf(dto.startDate, dto.endDate);
    return this.uow.run(ctx, (tx) => this.changeDatesIn(tx, bookingId, stay));
  }

  /** The dates change in the caller's transaction (calendar feeds): booking.changeDates and the reminder moved, as for the API. */
  async changeDatesIn(tx: Tx, bookingId: string, stay: Stay): Promise<BookingResponse> {
    const current = await this.lockOwn(tx, bookingId);
    const status = statusAfterDateChange(current);
    const updated = await this.repository.update(tx.manager, tx.ctx.accountId, current.id, { ...stay, status });
    const shape = await this.publish(tx, 'booking.changeDates', updated);
    await this.automation.moveForBooking(tx, updated);
    return shape;
  }

  /** Spec 3.1: any status → 3; the booking stays listed. Cancelling a cancelled booking answers it unchanged, with no event. */
  async cancel(ctx: RequestContext, bookingId: string): Promise<BookingResponse> {
    return this.uow.run(ctx, (tx) => this.cancelIn(tx, bookingId));
  }

  /** The cancel in the caller's transaction (calendar feeds): booking.cancel and the reminder removed, as for the API. */
  async cancelIn(tx: Tx, bookingId: string): Promise<BookingResponse> {
    const current = await this.lockOwn(tx, bookingId);
    if (isCancelled(current)) return toBookingResponse(current);
    const cancelled = await this.repository.update(tx.manager, tx.ctx.accountId, current.id, { status: BOOKING_STATUS.cancelled });
    const shape = await this.publish(tx, 'booking.cancel', cancelled);
    await this.automation.removeForBooking(tx, cancelled);
    return shape;
  }

  /**
   * For calendar feeds: the caller's account's booking, locked FOR UPDATE until the caller's transaction
   * ends (so what the feed decides from it still holds when it writes); undefined when it is gone.
   */
  async lockForChange(tx: Tx, bookingId: string): Promise<BookingResponse | undefined> {
    const booking = await this.repository.findOne(tx.manager, tx.ctx.accountId, bookingId, 'update');
    return booking ? toBookingResponse(booking) : undefined;
  }

  async delete(ctx: RequestContext, bookingId: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const current = await this.lockOwn(tx, bookingId);
      await this.repository.delete(tx.manager, ctx.accountId, current.id);
      await this.publish(tx, 'booking.delete', current);
      await this.automation.removeForBooking(tx, current);
    });
  }

  /**
   * For job requests (partnerBookingId): the caller's account's booking with this sourceBookingId, in
   * the caller's transaction, held FOR KEY SHARE until it commits (a concurrent delete of the booking
   * waits for it); undefined when the account has none.
   */
  async findBySourceBookingId(tx: Tx, sourceBookingId: string): Promise<BookingResponse | undefined> {
    const booking = await this.repository.findBySourceBookingId(tx.manager, tx.ctx.accountId, sourceBookingId, 'keyShare');
    return booking ? toBookingResponse(booking) : undefined;
  }

  /**
   * PropertyResolver deletion hook, in the property delete's transaction (the property is locked FOR
   * UPDATE, so no booking can be added meanwhile). The property's bookings are locked, then: any not
   * cancelled and ending after now → 409 naming how many (the whole delete rolls back); otherwise
   * every booking is deleted with its booking.delete event, then every reminder of the property with
   * its reminder.delete event. Reminders go here, after the bookings, rather than in a hook of their
   * own: every transaction then locks a property's bookings before its reminders (a date change
   * locks the booking, then moves its reminder), so the two can never deadlock.
   */
  private async deleteForProperty(tx: Tx, property: ResolvedProperty): Promise<void> {
    const bookings = await this.repository.lockByProperty(tx.manager, tx.ctx.accountId, property.propertyId);
    const now = Date.now();
    const active = bookings.filter((booking) => !isCancelled(booking) && booking.endDate.getTime() > now);
    if (active.length > 0) throw propertyHasActiveBookings(property.propertyId, active.length);
    await this.repository.deleteByIds(
      tx.manager,
      tx.ctx.accountId,
      bookings.map((booking) => booking.id),
    );
    for (const booking of bookings) await this.publish(tx, 'booking.delete', booking);
    await this.automation.deleteForProperty(tx, property.propertyId);
  }

  private async lockOwn(tx: Tx, bookingId: string): Promise<BookingEntity> {
    const booking = isIdOf(BOOKING_IDS.booking, bookingId)
      ? await this.repository.findOne(tx.manager, tx.ctx.accountId, bookingId, 'update')
      : undefined;
    if (!booking) throw new NotFoundError('Booking', bookingId);
    return booking;
  }

  private async publish(tx: Tx, eventName: EventsCarrying<BookingResponse>, booking: BookingEntity): Promise<BookingResponse> {
    const shape = toBookingResponse(booking);
    await this.events.publish(tx, eventName, [shape]);
    return shape;
  }
}

/** DTO instances to plain JSON for jsonb columns (drops undefined members). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
