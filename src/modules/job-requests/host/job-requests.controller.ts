import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { PostAction, PostCreate } from '../../../platform/http/post-routes';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CreateJobRequestDto } from './dto/create-job-request.dto';
import { ListJobRequestsQueryDto } from './dto/list-job-requests.dto';
import { OneOffTasksDto } from './dto/one-off-tasks.dto';
import { PaymentStatusDto } from './dto/payment-status.dto';
import { UpdateJobRequestDto } from './dto/update-job-request.dto';
import { JobRequestChangesService } from './job-request-changes.service';
import { JobRequestsService } from './job-requests.service';
import { RouteDoc, ok, page } from '../../../platform/openapi/route-doc';
import { JOB_REQUEST_EXAMPLES } from '../job-requests.declaration';
import { JOB_REQUEST_SHAPE, PAYMENT_STATUS_SHAPE } from '../job-request.response';

@Controller('v1/jobRequests')
export class JobRequestsController {
  constructor(
    private readonly jobs: JobRequestsService,
    private readonly changes: JobRequestChangesService,
  ) {}

  @RouteDoc({
    summary: 'Create a job request',
    description:
      "Invites the service providers; the property's details sent here update the property in the same transaction; checklists are copied onto the job. Emits jobRequest.created.",
    response: ok(JOB_REQUEST_SHAPE, 'The job (status 1).'),
    problems: [404, 409],
    example: { body: JOB_REQUEST_EXAMPLES.jobBody },
  })
  @PostCreate()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateJobRequestDto) {
    return this.jobs.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'List job requests in a window',
    description:
      'Jobs whose scheduled start is between dateFrom and dateTo (ISO 8601 date-times with a zone), by scheduledStartTime, ties by id; optionally of one status: 1 sent and still needing a cleaner (none has accepted), 2 accepted, 3 cancelled by you, 4 declined by every invited cleaner (also still needing one), 5 in progress, 7 finished, 8 cancelled by the cleaner, 9 changes waiting for the cleaner.',
    response: page(JOB_REQUEST_SHAPE, 'A page of jobs.'),
    example: { query: { dateFrom: '2030-07-01T00:00:00Z', dateTo: '2030-08-01T00:00:00Z', status: 1 } },
  })
  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListJobRequestsQueryDto) {
    return this.jobs.list(ctx.accountId, query);
  }

  @RouteDoc({
    summary: 'Get a job request',
    description: 'One job request with its status, cleaner, tasks and checklist snapshot.',
    response: ok(JOB_REQUEST_SHAPE, 'The job.'),
  })
  @Get(':jobRequestId')
  get(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string) {
    return this.jobs.get(ctx.accountId, jobRequestId);
  }

  @RouteDoc({
    summary: 'Change a job request',
    description:
      'An accepted job (2) moves to 9 until the cleaner accepts the changes. Closed jobs (3, 4, 7, 8) refuse with 409 invalidState.',
    response: ok(JOB_REQUEST_SHAPE, 'The changed job.'),
    problems: [409],
    example: { body: { offeredPrice: 95, message: 'Please also water the plants.' } },
  })
  @Patch(':jobRequestId')
  update(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: UpdateJobRequestDto) {
    return this.changes.update(ctx, jobRequestId, dto);
  }

  @RouteDoc({
    summary: 'Add or update one-off tasks',
    description: 'Tasks are matched by exact title: a known title keeps its id and gets the new note and picture.',
    response: ok(JOB_REQUEST_SHAPE, 'The job with its tasks.'),
    problems: [409],
    example: { body: { tasks: [{ title: 'Replace the hallway bulb', note: 'Spare bulbs are in the storage room.' }] } },
  })
  @PostAction(':jobRequestId/oneOffTasks')
  addOneOffTasks(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: OneOffTasksDto) {
    return this.changes.addOneOffTasks(ctx, jobRequestId, dto);
  }

  @RouteDoc({
    summary: 'Cancel a job request',
    description: 'Only before the job started (1, 2, 9 → 3); its cleaner is told. Emits jobRequest.canceled.',
    response: ok(JOB_REQUEST_SHAPE, 'The cancelled job.'),
    problems: [409],
  })
  @PostAction(':jobRequestId/cancel')
  cancel(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string) {
    return this.changes.cancel(ctx, jobRequestId);
  }

  @RouteDoc({
    summary: "Set a job's payment status",
    description: 'Records how the job was paid (status and an optional description); emits jobRequest.paymentStatusChanged.',
    response: ok(PAYMENT_STATUS_SHAPE, 'The payment status.'),
    example: { body: { status: 'successful', description: 'Paid by bank transfer' } },
  })
  @Patch(':jobRequestId/paymentStatus')
  setPaymentStatus(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: PaymentStatusDto) {
    return this.changes.setPaymentStatus(ctx, jobRequestId, dto);
  }
}
