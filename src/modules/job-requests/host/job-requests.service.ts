import { Injectable, OnModuleInit } from '@nestjs/common';
import { Tx, UnitOfWork } from '../../../platform/database/unit-of-work';
import { foundById } from '../../../platform/ids/found-by-id';
import { ConflictError, NotFoundError, ValidationError } from '../../../platform/errors/domain-error';
import { RequestContext } from '../../../platform/context/request-context';
import { parseDateTime } from '../../../platform/http/validators';
import { newId } from '../../../platform/ids/ids';
import { CursorCodec, CursorKey, InvalidCursorError } from '../../../platform/pagination/cursor';
import { dateWindowOf } from '../../../platform/pagination/date-window';
import { Page, toPage } from '../../../platform/pagination/page';
import { BookingsService } from '../../bookings/bookings.service';
import { ChecklistsService } from '../../checklists/checklists.service';
import { EventsService } from '../../events/events.service';
import { PropertiesService } from '../../properties/properties.service';
import { PropertyResolver, ResolvedProperty } from '../../properties/property-resolver.service';
import { assertChecklistsOfProperty, assertDistinctChecklistIds, inviteProviders } from '../job-changes.rules';
import { JobRequestResponse, toJobRequestResponse } from '../job-request.response';
import { JobRequestsRepository } from '../job-requests.repository';
import { assertTimeOrder, CopiedChecklist, JobTime, planTasks } from '../job-snapshot.rules';
import { JOB_STATUS } from '../job-status.rules';
import { CreateJobRequestDto } from './dto/create-job-request.dto';
import { JobTimeDto } from '../../reminders/dto/job-time.dto';
import { ListJobRequestsQueryDto } from './dto/list-job-requests.dto';
import { JOB_REQUEST_IDS } from '../job-requests.ids';

/**
 * Job request create and reads (spec 2.6, 4.7). Create is one transaction: the property (and its
 * details), the checklist copies, the booking link, the job row and jobRequest.created; the
 * snapshot comes back inline. Reads are plain reads of the columns the snapshot needs.
 */
@Injectable()
export class JobRequestsService implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: JobRequestsRepository,
    private readonly properties: PropertiesService,
    private readonly resolver: PropertyResolver,
    private readonly checklists: ChecklistsService,
    private readonly bookings: BookingsService,
    private readonly events: EventsService,
    private readonly cursors: CursorCodec,
  ) {}

  /** A property with a job in status 1, 2, 5 or 9 cannot be deleted; other jobs keep their snapshot and stay. */
  onModuleInit(): void {
    this.resolver.onDelete((tx, property) => this.refuseWhileActive(tx, property));
  }

  async create(ctx: RequestContext, dto: CreateJobRequestDto): Promise<JobRequestResponse> {
    // Rules on the request alone, before any query.
    const time = timeOf(dto.time);
    const serviceProviders = inviteProviders(dto.serviceProviders.map((provider) => provider.email));
    const checklistIds = (dto.checklists ?? []).map((ref) => ref.checklistId);
    assertDistinctChecklistIds(checklistIds);

    return this.uow.run(ctx, async (tx) => {
      const { propertyId, sourcePropertyId, ...details } = dto.property;
      const property = await this.properties.resolveForJob(tx, { propertyId, sourcePropertyId }, details);
      const checklists = await this.copyChecklists(tx, property.propertyId, checklistIds, (id) => checklistIds.indexOf(id));
      const partnerBookingId = await this.linkBooking(tx, property.propertyId, dto.sourceBookingId ?? undefined);
      const plan = planTasks(checklists, []);
      const job = await this.repository.insert(tx.manager, {
        id: newId(JOB_REQUEST_IDS.jobRequest),
        accountId: ctx.accountId,
        status: JOB_STATUS.pending,
        propertyId: property.propertyId,
        propertyTitle: property.name,
        propertyAddress: property.address,
        propertyCountryCode: property.countryCode,
        propertyLatitude: property.location.latitude,
        propertyLongitude: property.location.longitude,
        timeType: time.type,
        startTime: time.startTime,
        endTime: time.endTime,
        durationInHours: time.durationInHours,
        durationInMinutes: time.durationInMinutes,
        serviceProviders,
        checklistIds,
        checklists,
        oneOffTasks: [],
        totalTaskCount: plan.totalTaskCount,
        requiredVerificationPictureCount: plan.requiredVerificationPictureCount,
        offeredPrice: dto.offeredPrice ?? null,
        offeredPriceCurrency: dto.offeredPriceCurrency ?? null,
        message: dto.message ?? null,
        sourceBookingId: partnerBookingId ? (dto.sourceBookingId ?? null) : null,
        partnerBookingId,
        receiveUpdates: dto.receiveUpdates ?? null,
        cleanerId: null,
        cleanerEmail: null,
        cleanerName: null,
        actualStartTime: null,
        actualEndTime: null,
        startDistanceMeters: null,
        endDistanceMeters: null,
        completedTaskIds: [],
        verificationPictureCount: 0,
        problems: [],
        paymentStatus: null,
        paymentDescription: null,
        paymentUpdatedAt: null,
      });
      const shape = toJobRequestResponse(job);
      await this.events.publish(tx, 'jobRequest.created', [shape]);
      return tx.respond(shape);
    });
  }

  async get(accountId: string, jobRequestId: string): Promise<JobRequestResponse> {
    const job = await foundById(JOB_REQUEST_IDS.jobRequest, jobRequestId, 'Job request', () =>
      this.repository.findView(this.repository.manager, accountId, jobRequestId),
    );
    return toJobRequestResponse(job);
  }

  async list(accountId: string, query: ListJobRequestsQueryDto): Promise<Page<JobRequestResponse>> {
    const window = dateWindowOf(query.dateFrom, query.dateTo);
    // A cursor belongs to one query: reused with another window or status it is a 400, not a confusing page.
    const scope = ['jobRequests', window.from.toISOString(), window.to.toISOString(), query.status ?? ''].join('\n');
    const after = query.cursor === undefined ? undefined : decodeAfter(this.cursors.decode(scope, query.cursor));
    const rows = await this.repository.listPage(accountId, { ...window, status: query.status, after }, query.limit + 1);
    return toPage(rows, query.limit, toJobRequestResponse, (row) =>
      this.cursors.encode(scope, [new Date(row.startTime).toISOString(), row.id]),
    );
  }

  /**
   * Copies of the named checklists of the account (ChecklistsService.snapshotForJob: unknown → 400,
   * disabled → 409), each of which must belong to the job's property (400). `positionOf` gives an
   * id's index in the request, for the error pointers.
   */
  async copyChecklists(tx: Tx, propertyId: string, ids: string[], positionOf: (id: string) => number): Promise<CopiedChecklist[]> {
    if (ids.length === 0) return [];
    const copies = await this.checklists.snapshotForJob(tx, ids, (i) => `#/checklists/${positionOf(ids[i])}/checklistId`);
    assertChecklistsOfProperty(copies, propertyId, (copy) => positionOf(copy.checklistId));
    return copies;
  }

  /** sourceBookingId → the account's booking (404 when none), which must be at the job's property (400). */
  private async linkBooking(tx: Tx, propertyId: string, sourceBookingId: string | undefined): Promise<string | null> {
    if (sourceBookingId === undefined) return null;
    const booking = await this.bookings.findBySourceBookingId(tx, sourceBookingId);
    if (!booking) throw new NotFoundError('Booking with sourceBookingId', sourceBookingId);
    if (booking.propertyId !== propertyId) {
      throw ValidationError.field(
        '#/sourceBookingId',
        `Booking ${booking.bookingId} (sourceBookingId ${sourceBookingId}) is at another property than the job's (${propertyId})`,
      );
    }
    return booking.bookingId;
  }

  /** PropertyResolver deletion hook, in the property delete's transaction (the property row is locked FOR UPDATE). */
  private async refuseWhileActive(tx: Tx, property: ResolvedProperty): Promise<void> {
    const active = await this.repository.countActiveForProperty(tx.manager, tx.ctx.accountId, property.propertyId);
    if (active > 0) {
      throw new ConflictError(
        `Property ${property.propertyId} has ${active} job request${active === 1 ? '' : 's'} in status 1, 2, 5 or 9; cancel ${active === 1 ? 'it' : 'them'} or let ${active === 1 ? 'it' : 'them'} finish first`,
        { activeJobRequestCount: active },
      );
    }
  }
}

/** The create-time job time object as dates; endTime must come after startTime. */
export function timeOf(dto: JobTimeDto): JobTime {
  const time: JobTime = {
    type: dto.type,
    startTime: parseDateTime(dto.startTime) as Date,
    endTime: dto.endTime ? (parseDateTime(dto.endTime) as Date) : null,
    durationInHours: dto.durationInHours ?? null,
    durationInMinutes: dto.durationInMinutes ?? null,
  };
  assertTimeOrder(time);
  return time;
}

/** A job requests cursor is [scheduledStartTime ISO, id]. */
function decodeAfter(key: CursorKey): { startTime: string; id: string } {
  const [startTime, id, extra] = key;
  if (typeof startTime !== 'string' || typeof id !== 'string' || extra !== undefined || Number.isNaN(Date.parse(startTime))) {
    throw new InvalidCursorError();
  }
  return { startTime, id };
}
