import type { RequestContext } from '../../platform/context/request-context';
import type { ReadShape } from '../../platform/openapi/read-shape';
import { BOOKING_SHAPE } from '../bookings/booking.response';
import type { BookingsService } from '../bookings/bookings.service';
import { ChangeBookingDatesDto } from '../bookings/dto/change-booking-dates.dto';
import { CreateBookingDto } from '../bookings/dto/create-booking.dto';
import { ListBookingsQueryDto } from '../bookings/dto/list-bookings.dto';
import type { ChecklistsService } from '../checklists/checklists.service';
import { RecentEventsQueryDto } from '../events/dto/recent-events.dto';
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
import { CreatePropertyDto } from '../properties/dto/create-property.dto';
import { UpdatePropertyDto } from '../properties/dto/update-property.dto';
import type { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { PROPERTY_WITH_CHECKLISTS_SHAPE, WebhooksHealthResponse, WEBHOOKS_HEALTH_SHAPE } from './mcp.response';

type Dto<T extends object> = new () => T;

/**
 * One MCP tool: the REST operation it is (the same service call, DTO validation and problems; a create
 * also shares its Idempotency-Key records) and its output (the route's read shape). What the route says
 * is not repeated: its description is the route's @RouteDoc, its path ids are the tool's id arguments, its
 * method says what the tool may change (mcp.rules.ts: toolDescription, routeIds, effectOf).
 */
export interface ToolSpec<T extends object = object> {
  name: string;
  title: string;
  /** What the tool does beyond its route (a tool that also reads a second route), said after the route's description. */
  also?: string;
  /** Its own words, for a tool that reads its route's resource another way (newest first): instead of the route's @RouteDoc. */
  doc?: { summary: string; description: string };
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

/** The tools, one row each: a host's assistant's day (spec "API and AI assistants"); docs/assistants.md lists them. */
export function toolTable(s: ToolServices): ToolSpec[] {
  return [
    tool({
      name: 'find_properties',
      title: 'Find properties',
      route: 'GET /v1/properties',
      input: ListPropertiesQueryDto,
      output: { page: PROPERTY_SHAPE },
      run: (ctx, _ids, q) => s.properties.list(ctx.accountId, q.cursor, q.limit, { name: q.name, sourceId: q.sourceId }),
    }),
    tool({
      name: 'create_property',
      title: 'Create a property',
      route: 'POST /v1/properties',
      input: CreatePropertyDto,
      idempotent: true,
      output: PROPERTY_SHAPE,
      run: (ctx, _ids, dto) => s.properties.create(ctx, dto),
    }),
    tool({
      name: 'update_property',
      title: 'Update a property',
      route: 'PATCH /v1/properties/{propertyId}',
      input: UpdatePropertyDto,
      output: PROPERTY_SHAPE,
      run: (ctx, { propertyId }, dto) => s.properties.update(ctx, propertyId, dto),
    }),
    tool({
      name: 'get_property',
      title: 'Get a property and its checklists',
      route: 'GET /v1/properties/{propertyId}',
      also: 'With every checklist of the property (GET /v1/properties/{propertyId}/checklists), enabled or not, each with its task ids.',
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
      route: 'GET /v1/bookings',
      input: ListBookingsQueryDto,
      output: { page: BOOKING_SHAPE },
      run: (ctx, _ids, q) => s.bookings.list(ctx.accountId, q),
    }),
    tool({
      name: 'get_booking',
      title: 'Get a booking',
      route: 'GET /v1/bookings/{bookingId}',
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }) => s.bookings.get(ctx.accountId, bookingId),
    }),
    tool({
      name: 'create_booking',
      title: 'Create a booking',
      route: 'POST /v1/bookings',
      input: CreateBookingDto,
      idempotent: true,
      output: BOOKING_SHAPE,
      run: (ctx, _ids, dto) => s.bookings.create(ctx, dto),
    }),
    tool({
      name: 'change_booking_dates',
      title: "Change a booking's dates",
      route: 'PATCH /v1/bookings/{bookingId}/dates',
      input: ChangeBookingDatesDto,
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }, dto) => s.bookings.changeDates(ctx, bookingId, dto),
    }),
    tool({
      name: 'cancel_booking',
      title: 'Cancel a booking',
      route: 'POST /v1/bookings/{bookingId}/cancel',
      output: BOOKING_SHAPE,
      run: (ctx, { bookingId }) => s.bookings.cancel(ctx, bookingId),
    }),
    tool({
      name: 'list_job_requests',
      title: 'List job requests in a window',
      route: 'GET /v1/jobRequests',
      input: ListJobRequestsQueryDto,
      output: { page: JOB_REQUEST_SHAPE },
      run: (ctx, _ids, q) => s.jobs.list(ctx.accountId, q),
    }),
    tool({
      name: 'get_job_request',
      title: 'Get a job request',
      route: 'GET /v1/jobRequests/{jobRequestId}',
      output: JOB_REQUEST_SHAPE,
      run: (ctx, { jobRequestId }) => s.jobs.get(ctx.accountId, jobRequestId),
    }),
    tool({
      name: 'create_job_request',
      title: 'Create a job request',
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
      route: 'POST /v1/jobRequests/{jobRequestId}/cancel',
      reachesPeople: true,
      output: JOB_REQUEST_SHAPE,
      run: (ctx, { jobRequestId }) => s.jobChanges.cancel(ctx, jobRequestId),
    }),
    tool({
      name: 'read_job_chat',
      title: "Read a job's chat",
      route: 'GET /v1/jobRequests/{jobRequestId}/comments',
      input: ListCommentsQueryDto,
      output: { page: COMMENT_SHAPE },
      run: (ctx, { jobRequestId }, q) => s.comments.list(ctx.accountId, jobRequestId, q),
    }),
    tool({
      name: 'post_job_chat',
      title: "Write in a job's chat",
      also: 'Text only here: an image goes through the REST route.',
      route: 'POST /v1/jobRequests/{jobRequestId}/comments',
      reachesPeople: true,
      input: CreateCommentDto,
      output: COMMENT_SHAPE,
      run: (ctx, { jobRequestId }, dto) => s.comments.createHostComment(ctx, jobRequestId, dto),
    }),
    tool({
      name: 'list_recent_events',
      title: 'List recent events',
      route: 'GET /v1/events',
      // "What happened recently?": the feed's events newest first, where the REST feed reads oldest first from a cursor.
      doc: {
        summary: "The account's most recent events, newest first",
        description:
          'What happened lately (events are kept 90 days), each as the REST feed returns it (GET /v1/events, oldest first); eventName keeps only the events of that name, such as jobRequest.completed.',
      },
      input: RecentEventsQueryDto,
      output: { page: EVENT_SHAPE },
      run: (ctx, _ids, q) => s.events.newestFirst(ctx.accountId, q),
    }),
    tool({
      name: 'webhooks_health',
      title: "Webhooks' health",
      also: `With each subscription's failing deliveries (failed for good, or failed and waiting for a retry) among its ${HEALTH_DELIVERIES} newest.`,
      route: 'GET /v1/webhooks',
      output: WEBHOOKS_HEALTH_SHAPE,
      run: async (ctx): Promise<WebhooksHealthResponse> => ({ subscriptions: await s.webhooks.health(ctx.accountId, HEALTH_DELIVERIES) }),
    }),
  ];
}
