import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { ReplayWebhookDto } from './dto/replay-webhook.dto';
import { WebhookReplaysService } from './webhook-replays.service';

/** Replays of the event log to a subscription (issue 13, an extension of the spec: docs/webhooks.md). */
@Controller('v1/webhooks/:webhookId')
export class WebhookReplaysController {
  constructor(private readonly replays: WebhookReplaysService) {}

  @Post('replay')
  @HttpCode(202)
  replay(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: ReplayWebhookDto) {
    return this.replays.start(ctx.accountId, webhookId, body);
  }

  @Get('replays/:replayId')
  get(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('replayId') replayId: string) {
    return this.replays.get(ctx.accountId, webhookId, replayId);
  }
}
