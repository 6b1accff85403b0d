import { Body, Controller, Param, Post } from '@nestjs/common';
import { PostAction } from '../../../platform/http/post-routes';
import { ok, RouteDoc, RouteDocOptions } from '../../../platform/openapi/route-doc';
import { COMMENT_SHAPE } from '../chat/comment.response';
import { JOB_REQUEST_SHAPE } from '../job-request.response';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CommentsService } from '../chat/comments.service';
import { ServiceProviderDto } from '../host/dto/job-parts.dto';
import { AcceptDto, CompleteDto, PositionDto, ProviderCommentDto } from './dto/test-helpers.dto';
import { JobLifecycleService } from './job-lifecycle.service';
import { TestModeOnly } from '../../auth/test-mode-only.decorator';

/** A helper's documentation: test mode only (x-test-mode-only), the snapshot it answers, 409 for a move the job's status refuses. */
const helperDoc = (summary: string, from: string, body?: object): RouteDocOptions => ({
  summary,
  description: `${from} (docs/job-requests.md "Test helpers").`,
  response: ok(JOB_REQUEST_SHAPE, "The job request's rebuilt snapshot."),
  problems: [409],
  testModeOnly: true,
  ...(body ? { example: { body } } : {}),
});

/**
 * Stripe-style test helpers: drive the provider side of a job (what the providers' apps do in
 * production) through the real state machine. They answer test keys everywhere and live keys only
 * where TEST_HELPERS_ENABLED=true (@TestModeOnly, the key guard); authenticated and account-scoped like every
 * route. Each transition answers the rebuilt snapshot; an impossible one is a 409 invalidState.
 */
@TestModeOnly()
@Controller('v1/testHelpers/jobRequests/:jobRequestId')
export class JobRequestTestHelpersController {
  constructor(
    private readonly lifecycle: JobLifecycleService,
    private readonly comments: CommentsService,
  ) {}

  @RouteDoc(
    helperDoc('Accept a job as an invited provider', 'Status 1 to 2: the invited provider (email) becomes the cleaner', {
      email: 'ann@cleaners.example',
      name: 'Ann Smith',
    }),
  )
  @PostAction('accept')
  accept(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: AcceptDto) {
    return this.lifecycle.accept(ctx, id, dto.email, dto.name ?? undefined);
  }

  @RouteDoc(
    helperDoc('Decline a job as an invited provider', 'Status 1 stays 1, or 4 once every invited provider declined', {
      email: 'ann@cleaners.example',
    }),
  )
  @PostAction('decline')
  decline(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: ServiceProviderDto) {
    return this.lifecycle.decline(ctx, id, dto.email);
  }

  @RouteDoc(helperDoc('Start the job as its cleaner', 'Status 2 to 5', { latitude: 48.8566, longitude: 2.3522 }))
  @PostAction('start')
  start(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: PositionDto) {
    return this.lifecycle.start(ctx, id, dto);
  }

  @RouteDoc(
    helperDoc('Complete the job as its cleaner', 'Status 5 to 7', {
      verificationPictureCount: 2,
      problems: [{ severity: 2, status: 'open', step: 'Kitchen', checklist: 'Turnover' }],
    }),
  )
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

  @RouteDoc(helperDoc('Cancel the job as its cleaner', 'Status 2 or 9 to 8'))
  @PostAction('cancelByCleaner')
  cancelByCleaner(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.cancelByCleaner(ctx, id);
  }

  @RouteDoc(helperDoc("Accept the host's changes as the cleaner", 'Status 9 to 2'))
  @PostAction('acceptChanges')
  acceptChanges(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.acceptChanges(ctx, id);
  }

  @RouteDoc(helperDoc("Decline the host's changes as the cleaner", 'Status 9 to 1: the provider is invited again'))
  @PostAction('declineChanges')
  declineChanges(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string) {
    return this.lifecycle.declineChanges(ctx, id);
  }

  /** A provider's chat message: 201 with the comment (as POST …/comments answers), comment.new in the feed. */
  @RouteDoc({
    ...helperDoc("Write in the job's chat as an invited provider", 'Any status: comment.new', {
      authorEmail: 'ann@cleaners.example',
      message: 'On my way',
    }),
    response: ok(COMMENT_SHAPE, 'The comment.'),
    problems: [],
  })
  @Post('comments')
  comment(@Ctx() ctx: RequestContext, @Param('jobRequestId') id: string, @Body() dto: ProviderCommentDto) {
    return this.comments.createProviderComment(ctx, id, dto.authorEmail, dto.message);
  }
}
