import { Body, Controller, Param, Post, UseGuards } from '@nestjs/common';
import { PostAction } from '../../../platform/http/post-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CommentsService } from '../chat/comments.service';
import { ServiceProviderDto } from '../host/dto/job-parts.dto';
import { AcceptDto, CompleteDto, PositionDto, ProviderCommentDto } from './dto/test-helpers.dto';
import { JobLifecycleService } from './job-lifecycle.service';
import { TestHelpersGuard } from './test-helpers.guard';

/**
 * Stripe-style test helpers: drive the provider side of a job (what the providers' apps do in
 * production) through the real state machine. They answer test keys everywhere and live keys only
 * where TEST_HELPERS_ENABLED=true (TestHelpersGuard); authenticated and account-scoped like every
 * route. Each transition answers the rebuilt snapshot; an impossible one is a 409 invalidState.
 */
@ApiExcludeController()
@UseGuards(TestHelpersGuard)
@Controller('v1/testHelpers/jobRequests/:jobRequestId')
export class JobRequestTestHelpersController {
  constructor(
    private readonly lifecycle: JobLifecycleService,
    private readonly comments: CommentsService,
  ) {}

  @PostAction('accept')
  accept(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: AcceptDto) {
    return this.lifecycle.accept(ctx, id, dto.email, dto.name ?? undefined);
  }

  @PostAction('decline')
  decline(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: ServiceProviderDto) {
    return this.lifecycle.decline(ctx, id, dto.email);
  }

  @PostAction('start')
  start(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: PositionDto) {
    return this.lifecycle.start(ctx, id, dto);
  }

  @PostAction('complete')
  complete(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: CompleteDto) {
    return this.lifecycle.complete(ctx, id, {
      latitude: dto.latitude,
      longitude: dto.longitude,
      completedTaskIds: dto.completedTaskIds ?? undefined,
      verificationPictureCount: dto.verificationPictureCount ?? undefined,
      problems: dto.problems ?? undefined,
    });
  }

  @PostAction('cancelByCleaner')
  cancelByCleaner(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.cancelByCleaner(ctx, id);
  }

  @PostAction('acceptChanges')
  acceptChanges(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.acceptChanges(ctx, id);
  }

  @PostAction('declineChanges')
  declineChanges(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.declineChanges(ctx, id);
  }

  /** A provider's chat message: 201 with the comment (as POST …/comments answers), comment.new in the feed. */
  @Post('comments')
  comment(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: ProviderCommentDto) {
    return this.comments.createProviderComment(ctx, id, dto.authorEmail, dto.message);
  }
}
