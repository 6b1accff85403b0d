import { Body, Controller, Get, Param } from '@nestjs/common';
import { PostQueued } from '../../../platform/http/post-routes';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { ReplayWebhookDto } from './dto/replay-webhook.dto';
import { WebhookReplaysService } from './webhook-replays.service';
import { RouteDoc, ok } from '../../../platform/openapi/route-doc';
import { WEBHOOK_REPLAY_SHAPE, WEBHOOK_REPLAY_STARTED_SHAPE } from './webhook-replay.response';

/** Replays of the event log to a subscription (issue 13, an extension of the spec: docs/webhooks.md). */
@Controller('v1/webhooks/:webhookId')
export class WebhookReplaysController {
  constructor(private readonly replays: WebhookReplaysService) {}

  @RouteDoc({
    summary: 'Replay a window of the event log to a subscription (extension)',
    description:
      "Replays the events created in [since, until) (default until: now; since within the 90-day retention) that match eventFilters (default: the subscription's), in event order, at a bounded rate, by a worker job. Deliveries carry their original webhook-id and a new attempt number. onlyFailed: only events whose delivery ended failed_permanent or never happened. dryRun: the count only. One running replay per subscription (409 with existingId).",
    response: ok(WEBHOOK_REPLAY_STARTED_SHAPE, 'Started (or, with dryRun, counted).'),
    problems: [409],
    example: { body: { since: new Date(Date.now() - 3_600_000).toISOString(), onlyFailed: true } },
  })
  @PostQueued('replay')
  replay(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: ReplayWebhookDto) {
    return this.replays.start(ctx.accountId, webhookId, body);
  }

  @RouteDoc({
    summary: "A replay's progress (extension)",
    description:
      'Its status (running, completed, stopped), window and filters, and how many of its deliveries were sent, delivered, failed or skipped.',
    response: ok(WEBHOOK_REPLAY_SHAPE, 'The replay.'),
  })
  @Get('replays/:replayId')
  get(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('replayId') replayId: string) {
    return this.replays.get(ctx.accountId, webhookId, replayId);
  }
}
