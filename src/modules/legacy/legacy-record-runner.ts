import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { BookingsService } from '../bookings/bookings.service';
import { CreateBookingDto } from '../bookings/dto/create-booking.dto';
import { UpdateBookingDto } from '../bookings/dto/update-booking.dto';
import { ChecklistsService } from '../checklists/checklists.service';
import { CreateChecklistDto } from '../checklists/dto/create-checklist.dto';
import { UpdateChecklistDto } from '../checklists/dto/update-checklist.dto';
import { CreateJobRequestDto } from '../job-requests/host/dto/create-job-request.dto';
import { UpdateJobRequestDto } from '../job-requests/host/dto/update-job-request.dto';
import { JobRequestChangesService } from '../job-requests/host/job-request-changes.service';
import { JobRequestsService } from '../job-requests/host/job-requests.service';
import { CreatePropertyDto } from '../properties/dto/create-property.dto';
import { UpdatePropertyDto } from '../properties/dto/update-property.dto';
import { PropertiesService } from '../properties/properties.service';
import { CreateReminderDto } from '../reminders/dto/create-reminder.dto';
import { RemindersService } from '../reminders/reminders.service';
import { LegacyAction, LegacyEntity } from './legacy.rules';

/** A record as the runner takes it: what to do, to which resource, with which body (data or changes). */
export interface RunnableRecord {
  entity: LegacyEntity;
  action: LegacyAction;
  entityId: string | null;
  body: Record<string, unknown> | null;
}

type Run = (ctx: RequestContext, id: string, body: object) => Promise<unknown>;

/**
 * Runs one legacy record exactly as its Platform route would (legacy.rules PLATFORM_EQUIVALENT): the
 * body validated with the route's own DTO and the API's validation (validateStrictly, so errors carry
 * the same pointers and details), then the route's service call with the worker's request context.
 * Services throw their domain errors as they do for the API.
 */
@Injectable()
export class LegacyRecordRunner {
  private readonly runs: Record<LegacyEntity, Partial<Record<LegacyAction, Run>>>;

  constructor(
    properties: PropertiesService,
    checklists: ChecklistsService,
    bookings: BookingsService,
    reminders: RemindersService,
    jobs: JobRequestsService,
    jobChanges: JobRequestChangesService,
  ) {
    const body = <T extends object>(dto: new () => T, run: (ctx: RequestContext, id: string, value: T) => Promise<unknown>): Run => {
      return async (ctx, id, raw) => run(ctx, id, await validateStrictly(dto, raw, 'body'));
    };
    /** A resource whose service creates and updates as its POST and PATCH routes do. */
    const createAndUpdate = <C extends object, U extends object>(
      create: new () => C,
      update: new () => U,
      service: { create(ctx: RequestContext, dto: C): Promise<unknown>; update(ctx: RequestContext, id: string, dto: U): Promise<unknown> },
    ) => ({
      create: body(create, (ctx, _id, dto) => service.create(ctx, dto)),
      update: body(update, (ctx, id, dto) => service.update(ctx, id, dto)),
    });
    this.runs = {
      property: { ...createAndUpdate(CreatePropertyDto, UpdatePropertyDto, properties), delete: (ctx, id) => properties.delete(ctx, id) },
      checklist: {
        ...createAndUpdate(CreateChecklistDto, UpdateChecklistDto, checklists),
        delete: (ctx, id) => checklists.disable(ctx, id),
      },
      booking: { ...createAndUpdate(CreateBookingDto, UpdateBookingDto, bookings), delete: (ctx, id) => bookings.delete(ctx, id) },
      reminder: {
        create: body(CreateReminderDto, (ctx, _id, dto) => reminders.create(ctx, dto)),
        delete: (ctx, id) => reminders.delete(ctx, id),
      },
      jobRequest: {
        create: body(CreateJobRequestDto, (ctx, _id, dto) => jobs.create(ctx, dto)),
        update: body(UpdateJobRequestDto, (ctx, id, dto) => jobChanges.update(ctx, id, dto)),
        delete: (ctx, id) => jobChanges.cancel(ctx, id),
      },
    };
  }

  /** The Platform response (undefined for a delete). The batch's shape was checked on intake, so the pair exists. */
  run(ctx: RequestContext, record: RunnableRecord): Promise<unknown> {
    const run = this.runs[record.entity][record.action];
    if (!run) throw new Error(`no Platform equivalent for ${record.entity} ${record.action}`);
    return run(ctx, record.entityId ?? '', record.body ?? {});
  }
}
