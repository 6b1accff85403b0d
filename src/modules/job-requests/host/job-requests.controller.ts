import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { Idempotent } from '../../../platform/http/idempotency.interceptor';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CreateJobRequestDto } from './dto/create-job-request.dto';
import { ListJobRequestsQueryDto } from './dto/list-job-requests.dto';
import { JobRequestsService } from './job-requests.service';

@Controller('v1/jobRequests')
export class JobRequestsController {
  constructor(private readonly jobs: JobRequestsService) {}

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
}
