import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ListQueryDto } from '../../platform/pagination/list-query.dto';
import { LegacyKeyRequired } from '../auth/legacy-key.decorator';
import { LegacyWebhookService } from '../webhooks/subscriptions/legacy-webhook.service';
import { PutLegacyWebhookDto } from './dto/put-legacy-webhook.dto';
import { SubmitLegacyBatchDto } from './dto/submit-legacy-batch.dto';
import { LegacyBatchesService } from './legacy-batches.service';

/** The deprecated legacy API (spec 9, docs/legacy.md): legacy keys only; every answer carries the deprecation headers. */
@Controller('legacy')
@LegacyKeyRequired()
export class LegacyController {
  constructor(
    private readonly batches: LegacyBatchesService,
    private readonly webhook: LegacyWebhookService,
  ) {}

  @Post('batch')
  @HttpCode(202)
  submit(@Ctx() ctx: RequestContext, @Body() body: SubmitLegacyBatchDto) {
    return this.batches.submit(ctx, body);
  }

  @Get('batch/:batchId')
  batch(@Ctx() ctx: RequestContext, @Param('batchId') batchId: string) {
    return this.batches.get(ctx.accountId, batchId);
  }

  @Put('webhook')
  putWebhook(@Ctx() ctx: RequestContext, @Body() body: PutLegacyWebhookDto) {
    return this.webhook.put(ctx.accountId, body.url);
  }

  @Get('webhook')
  getWebhook(@Ctx() ctx: RequestContext) {
    return this.webhook.get(ctx.accountId);
  }

  @Delete('webhook')
  @HttpCode(204)
  async deleteWebhook(@Ctx() ctx: RequestContext): Promise<void> {
    await this.webhook.remove(ctx.accountId);
  }

  @Get('webhook/deliveries')
  deliveries(@Ctx() ctx: RequestContext, @Query() query: ListQueryDto) {
    return this.webhook.deliveries(ctx.accountId, query.cursor, query.limit);
  }
}
