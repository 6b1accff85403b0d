import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Idempotent } from '../../../platform/http/idempotency.interceptor';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CreateJobRequestDto } from './dto/create-job-request.dto';
import { ListJobRequestsQueryDto } from './dto/list-job-requests.dto';
import { OneOffTasksDto } from './dto/one-off-tasks.dto';
import { PaymentStatusDto } from './dto/payment-status.dto';
import { UpdateJobRequestDto } from './dto/update-job-request.dto';
import { JobRequestChangesService } from './job-request-changes.service';
import { JobRequestsService } from './job-requests.service';

@Controller('v1/jobRequests')
export class JobRequestsController {
  constructor(
    private readonly jobs: JobRequestsService,
    private readonly changes: JobRequestChangesService,
  ) {}

  @Post()
  @Idempotent()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateJobRequestDto) {
    return this.jobs.create(ctx, dto);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListJobRequestsQueryDto) {
    return this.jobs.list(ctx.accountId, query);
  }

  @Get(':jobRequestId')
  get(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string) {
    return this.jobs.get(ctx.accountId, jobRequestId);
  }

  @Patch(':jobRequestId')
  update(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: UpdateJobRequestDto) {
    return this.changes.update(ctx, jobRequestId, dto);
  }

  @Post(':jobRequestId/oneOffTasks')
  @HttpCode(200)
  addOneOffTasks(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: OneOffTasksDto) {
    return this.changes.addOneOffTasks(ctx, jobRequestId, dto);
  }

  @Post(':jobRequestId/cancel')
  @HttpCode(200)
  cancel(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string) {
    return this.changes.cancel(ctx, jobRequestId);
  }

  @Patch(':jobRequestId/paymentStatus')
  setPaymentStatus(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Body() dto: PaymentStatusDto) {
    return this.changes.setPaymentStatus(ctx, jobRequestId, dto);
  }
}
