import type { RequestContext } from '../../platform/context/request-context';
import type { ReadShape } from '../../platform/openapi/read-shape';
import { BOOKING_SHAPE } from '../bookings/booking.response';
import type { BookingsService } from '../bookings/bookings.service';
import { ChangeBookingDatesDto } from '../bookings/dto/change-booking-dates.dto';
import { CreateBookingDto } from '../bookings/dto/create-booking.dto';
import { ListBookingsQueryDto } from '../bookings/dto/list-bookings.dto';
import type { ChecklistsService } from '../checklists/checklists.service';
import { ListEventsQueryDto } from '../events/dto/list-events.dto';
import { EVENT_SHAPE } from '../events/event.response';
import type { EventsService } from '../events/events.service';
import { COMMENT_SHAPE } from '../job-requests/chat/comment.response';
import type { CommentsService } from '../job-requests/chat/comments.service';
import { CreateCommentDto } from '../job-requests/chat/dto/create-comment.dto';
import { ListCommentsQueryDto } from '../job-requests/chat/dto/list-comments.dto';
import { CreateJobRequestDto } from '../job-requests/host/dto/create-job-request.dto';
import { ListJobRequestsQueryDto } from '../job-requests/host/dto/list-job-requests.dto';
import type { JobRequestChangesService } from '../job-requests/host/job-request-changes.service';
import type { JobRequestsService } from '../job-requests/host/job-requests.service';
import { JOB_REQUEST_SHAPE } from '../job-requests/job-request.response';
import { ListPropertiesQueryDto } from '../properties/dto/list-properties.dto';
import type { PropertiesService } from '../properties/properties.service';
import { PROPERTY_SHAPE } from '../properties/property.response';
import type { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { PROPERTY_WITH_CHECKLISTS_SHAPE, WebhooksHealthResponse, WEBHOOKS_HEALTH_SHAPE } from './mcp.response';

type Dto<T extends object> = new () => T;

/**
 * One MCP tool: the REST operation it is (the same service call, DTO validation and problems; a create
 * also shares its Idempotency-Key records) and its output (the route's read shape). What the route says
 * is not repeated: its path ids are the tool's id arguments, its method says where the DTO's fields go
 * and what the tool may change (mcp.rules.ts: routeIds, inputPlace, effectOf).
 */
export interface ToolSpec<T extends object = object> {
  name: string;
  title: string;
  description: string;
  /** `POST /v1/bookings`: the route whose service the tool calls, and (creates) the Idempotency-Key fingerprint's method and path. */
  route: string;
  /** It notifies someone outside the account (the job's cleaners): MCP's openWorldHint. */
  reachesPeople?: boolean;
  /** The route's query or body DTO: its schema is the tool's input, its class-validator rules validate it. */
  input?: Dto<T>;
  /** A create route with Idempotency-Key: the tool takes `idempotencyKey`. */
  idempotent?: boolean;
  output: ReadShape | { page: ReadShape };
  run(ctx: RequestContext, ids: Record<string, string>, input: T): Promise<object>;
}

const tool = <T extends object>(spec: ToolSpec<T>): ToolSpec => spec as unknown as ToolSpec;

export interface ToolServices {
  properties: PropertiesService;
  checklists: ChecklistsService;
  bookings: BookingsService;
  jobs: JobRequestsService;
  jobChanges: JobRequestChangesService;
  comments: CommentsService;
  events: EventsService;
  webhooks: WebhookSubscriptionsService;
}

/** How many of a subscription's newest deliveries webhooks_health looks through for failures. */
export const HEALTH_DELIVERIES = 20;

const WINDOW =
  "dateFrom and dateTo are ISO 8601 date-times with a zone; page with cursor (the previous answer's nextCursor) while hasMore.";

/** The tools, one row each: a host's assistant's day (spec "API and AI assistants"); docs/assistants.md lists them. */
export function toolTable(s: ToolServices): ToolSpec[] {
  return [
    tool({
      name: 'find_properties',
      title: 'Find properties',
      description:
        "Lists the account's properties, optionally those whose name contains `name` (any case) or whose sourceId (your own id) is `sourceId`. Paged: pass nextCursor as cursor while hasMore.",
      route: 'GET /v1/properties',
      input: ListPropertiesQueryDto,
      output: { page: PROPERTY_SHAPE },
      run: (ctx, _ids, q) => s.properties.list(ctx.accountId, q.cursor, q.limit, { name: q.name, sourceId: q.sourceId }),
    }),
    tool({
      name: 'get_property',
      title: 'Get a property and its checklists',
      description: 'One property (address, beds, settings, pictures) with every checklist of it, each with its task ids.',
      route: 'GET /v1/properties/{propertyId}',
      output: PROPERTY_WITH_CHECKLISTS_SHAPE,
      run: async (ctx, { propertyId }) => {
        const property = await s.properties.get(ctx.accountId, propertyId);
        const checklists = await s.checklists.listForProperty(ctx, propertyId);
        return { property, checklists: checklists.data };
      },
    }),
    tool({
      name: 'list_bookings',
      title: 'List bookings in a window',
      description: `Bookings overlapping the window (arriving before dateTo, leaving after dateFrom), optionally of one property and one status (1 created, 2 dates changed, 3 cancelled). ${WINDOW}`,
      route: 'GET /v1/bookings',
      input: ListBookingsQueryDto,
      output: { page: BOOKING_SHAPE },
      run: (ctx, _ids, q) => s.bookings.list(ctx.accountId, q),
    }),
    tool({
      name: 'get_booking',
      title: 'Get a booking',
      description: 'One booking by its bookingId.',
      route: 'GET /v1/bookings/{bookingId}',
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }) => s.bookings.get(ctx.accountId, bookingId),
    }),
    tool({
      name: 'create_booking',
      title: 'Create a booking',
      description:
        'Creates a booking on a property (propertyId or sourcePropertyId); a turnover reminder follows at check-out unless the property disables it. A sourceBookingId already used is refused (conflict, with existingId). Pass an idempotencyKey to make a retry safe.',
      route: 'POST /v1/bookings',
      input: CreateBookingDto,
      idempotent: true,
      output: BOOKING_SHAPE,
      run: (ctx, _ids, dto) => s.bookings.create(ctx, dto),
    }),
    tool({
      name: 'change_booking_dates',
      title: "Change a booking's dates",
      description: 'Moves a booking to new startDate and endDate (its reminders move with it). Refused for a cancelled booking.',
      route: 'PATCH /v1/bookings/{bookingId}/dates',
      input: ChangeBookingDatesDto,
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }, dto) => s.bookings.changeDates(ctx, bookingId, dto),
    }),
    tool({
      name: 'cancel_booking',
      title: 'Cancel a booking',
      description: 'Cancels a booking (status 3). It stays listed as cancelled; a second cancel is refused.',
      route: 'POST /v1/bookings/{bookingId}/cancel',
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }) => s.bookings.cancel(ctx, bookingId),
    }),
    tool({
      name: 'list_job_requests',
      title: 'List job requests in a window',
      description: `Cleaning and maintenance jobs whose scheduled start is in the window, optionally of one status: 1 sent and still needing a cleaner (none has accepted), 2 accepted, 3 cancelled by you, 4 declined by every invited cleaner (also still needing one), 5 in progress, 7 finished, 8 cancelled by the cleaner, 9 changes waiting for the cleaner. ${WINDOW}`,
      route: 'GET /v1/jobRequests',
      input: ListJobRequestsQueryDto,
      output: { page: JOB_REQUEST_SHAPE },
      run: (ctx, _ids, q) => s.jobs.list(ctx.accountId, q),
    }),
    tool({
      name: 'get_job_request',
      title: 'Get a job request',
      description: 'One job request with its status, cleaner, tasks and checklist snapshot.',
      route: 'GET /v1/jobRequests/{jobRequestId}',
      output: JOB_REQUEST_SHAPE,
      run: (ctx, { jobRequestId }) => s.jobs.get(ctx.accountId, jobRequestId),
    }),
    tool({
      name: 'create_job_request',
      title: 'Create a job request',
      description:
        'Offers a job (a cleaning after a booking, a repair) on a property to service providers, who are notified. Pass an idempotencyKey to make a retry safe.',
      route: 'POST /v1/jobRequests',
      reachesPeople: true,
      input: CreateJobRequestDto,
      idempotent: true,
      output: JOB_REQUEST_SHAPE,
      run: (ctx, _ids, dto) => s.jobs.create(ctx, dto),
    }),
    tool({
      name: 'cancel_job_request',
      title: 'Cancel a job request',
      description: 'Cancels a job (status 3); its cleaner is told. Refused once the job is finished or already cancelled.',
      route: 'POST /v1/jobRequests/{jobRequestId}/cancel',
      reachesPeople: true,
      output: JOB_REQUEST_SHAPE,
      run: (ctx, { jobRequestId }) => s.jobChanges.cancel(ctx, jobRequestId),
    }),
    tool({
      name: 'read_job_chat',
      title: "Read a job's chat",
      description: "The job's chat with its cleaner, oldest first; updatedAfter and offset page through it.",
      route: 'GET /v1/jobRequests/{jobRequestId}/comments',
      input: ListCommentsQueryDto,
      output: { page: COMMENT_SHAPE },
      run: (ctx, { jobRequestId }, q) => s.comments.list(ctx.accountId, jobRequestId, q),
    }),
    tool({
      name: 'post_job_chat',
      title: "Write in a job's chat",
      description: "Posts a message to the job's chat; the cleaner sees it. Images can be sent through the REST route only.",
      route: 'POST /v1/jobRequests/{jobRequestId}/comments',
      reachesPeople: true,
      input: CreateCommentDto,
      output: COMMENT_SHAPE,
      run: (ctx, { jobRequestId }, dto) => s.comments.createHostComment(ctx, jobRequestId, dto),
    }),
    tool({
      name: 'list_recent_events',
      title: 'List recent events',
      description:
        "The account's event feed (what changed: bookings, jobs, chat, properties…), oldest first; pass the previous page's nextCursor as after to go on.",
      route: 'GET /v1/events',
      input: ListEventsQueryDto,
      output: { page: EVENT_SHAPE },
      run: (ctx, _ids, q) => s.events.feed(ctx.accountId, q.after, q.limit),
    }),
    tool({
      name: 'webhooks_health',
      title: "Webhooks' health",
      description: `Every webhook subscription: enabled or disabled (with disabledReason), and its failing deliveries (failed for good, or failed and waiting for a retry) among its ${HEALTH_DELIVERIES} newest.`,
      route: 'GET /v1/webhooks',
      output: WEBHOOKS_HEALTH_SHAPE,
      run: async (ctx): Promise<WebhooksHealthResponse> => ({ subscriptions: await s.webhooks.health(ctx.accountId, HEALTH_DELIVERIES) }),
    }),
  ];
}
