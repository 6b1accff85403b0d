import { Body, Controller, Delete, Get, Param, Put, Query } from '@nestjs/common';
import { PostQueued } from '../../platform/http/post-routes';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ListQueryDto } from '../../platform/pagination/list-query.dto';
import { LegacyKeyRequired } from '../auth/legacy-key.decorator';
import { LegacyWebhookService } from '../webhooks/subscriptions/legacy-webhook.service';
import { PutLegacyWebhookDto } from './dto/put-legacy-webhook.dto';
import { SubmitLegacyBatchDto } from './dto/submit-legacy-batch.dto';
import { LegacyBatchesService } from './legacy-batches.service';
import { RouteDoc, none, ok, page } from '../../platform/openapi/route-doc';
import { LEGACY_EXAMPLES } from './legacy.declaration';
import { LEGACY_BATCH_ACCEPTED_SHAPE, LEGACY_BATCH_SHAPE } from './legacy-batch.response';
import { LEGACY_WEBHOOK_SHAPE } from '../webhooks/subscriptions/legacy-webhook.response';
import { WEBHOOK_DELIVERY_SHAPE } from '../webhooks/subscriptions/webhook-delivery.response';

/** The deprecated legacy API (spec 9, docs/legacy.md): legacy keys only; every answer carries the deprecation headers. */
@Controller('legacy')
@LegacyKeyRequired()
export class LegacyController {
  constructor(
    private readonly batches: LegacyBatchesService,
    private readonly webhook: LegacyWebhookService,
  ) {}

  @RouteDoc({
    summary: 'Submit a legacy batch (deprecated)',
    description:
      'Legacy keys only (a Platform key gets 403 legacyKeyRequired). 1-20 records {clientRequestId, entity, action, entityId?, data?, changes?}; a malformed batch is a 400 at once, a well-formed one is stored and acknowledged (202), then its records are applied in order, each through the Platform route it stands for; each outcome reaches the legacy webhook (the resource event, or legacy.validationError). From the sunset every legacy route answers 410 legacyApiRetired. Every answer carries Deprecation, Sunset and Link (rel="deprecation"). See docs/legacy.md.',
    response: ok(LEGACY_BATCH_ACCEPTED_SHAPE, 'Stored; processed after this answer.'),
    problems: [410],
    example: { body: LEGACY_EXAMPLES.batch },
  })
  @PostQueued('batch')
  submit(@Ctx() ctx: RequestContext, @Body() body: SubmitLegacyBatchDto) {
    return this.batches.submit(ctx, body);
  }

  @RouteDoc({
    summary: "A legacy batch's status and each record's outcome (deprecated)",
    description: 'For a client that lost a webhook. Legacy keys only.',
    response: ok(LEGACY_BATCH_SHAPE, 'The batch.'),
    problems: [410],
    example: { params: { batchId: LEGACY_EXAMPLES.legacyBatchId } },
  })
  @Get('batch/:batchId')
  batch(@Ctx() ctx: RequestContext, @Param('batchId') batchId: string) {
    return this.batches.get(ctx.accountId, batchId);
  }

  @RouteDoc({
    summary: "Set the account's legacy webhook URL (deprecated)",
    description:
      'One per account; receives every event of the account (Platform calls included) with the Platform envelope byte for byte, unsigned (no webhook-signature), with the same retries. The URL rules of Platform subscriptions apply. PUT again to change the URL or re-enable it.',
    response: ok(LEGACY_WEBHOOK_SHAPE, 'The legacy webhook.'),
    problems: [410],
    example: { body: { url: LEGACY_EXAMPLES.legacyWebhookUrl } },
  })
  @Put('webhook')
  putWebhook(@Ctx() ctx: RequestContext, @Body() body: PutLegacyWebhookDto) {
    return this.webhook.put(ctx.accountId, body.url);
  }

  @RouteDoc({
    summary: "The account's legacy webhook (deprecated)",
    description: 'Its url, whether it is enabled (with disabledReason while not) and its retries; 404 when the account has none.',
    response: ok(LEGACY_WEBHOOK_SHAPE, 'The legacy webhook.'),
    problems: [404, 410],
  })
  @Get('webhook')
  getWebhook(@Ctx() ctx: RequestContext) {
    return this.webhook.get(ctx.accountId);
  }

  @RouteDoc({
    summary: "Remove the account's legacy webhook (deprecated)",
    description: 'Its pending deliveries and delivery log go with it.',
    response: none(),
    problems: [404, 410],
  })
  @Delete('webhook')
  async deleteWebhook(@Ctx() ctx: RequestContext): Promise<void> {
    await this.webhook.remove(ctx.accountId);
  }

  @RouteDoc({
    summary: "The legacy webhook's delivery log (deprecated)",
    description: 'Newest first; nextCursor is the last row id. 404 when no legacy webhook is set.',
    response: page(WEBHOOK_DELIVERY_SHAPE, 'A page of deliveries.'),
    problems: [404, 410],
    example: { query: { limit: 10 } },
  })
  @Get('webhook/deliveries')
  deliveries(@Ctx() ctx: RequestContext, @Query() query: ListQueryDto) {
    return this.webhook.deliveries(ctx.accountId, query.cursor, query.limit);
  }
}
