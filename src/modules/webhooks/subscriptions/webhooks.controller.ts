import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { ListQueryDto } from '../../../platform/pagination/list-query.dto';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { TestWebhookDto } from './dto/test-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

/** Webhook subscriptions, their test deliveries, delivery log and secret rotation (spec 4.8). */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @Post()
  create(@Ctx() ctx: RequestContext, @Body() body: CreateWebhookDto) {
    return this.subscriptions.create(ctx, body);
  }

  @Get()
  list(@Ctx() ctx: RequestContext) {
    return this.subscriptions.list(ctx.accountId);
  }

  @Patch(':webhookId')
  update(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: UpdateWebhookDto) {
    return this.subscriptions.update(ctx, webhookId, body);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  async remove(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string): Promise<void> {
    await this.subscriptions.remove(ctx.accountId, webhookId);
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  test(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: TestWebhookDto) {
    return this.subscriptions.sendTest(ctx, webhookId, body.eventName);
  }

  @Get(':webhookId/deliveries')
  deliveries(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Query() query: ListQueryDto) {
    return this.subscriptions.deliveries(ctx.accountId, webhookId, query.cursor, query.limit);
  }

  @Get(':webhookId/deliveries/:deliveryId')
  delivery(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('deliveryId') deliveryId: string) {
    return this.subscriptions.delivery(ctx.accountId, webhookId, deliveryId);
  }

  @Post(':webhookId/deliveries/:deliveryId/retry')
  @HttpCode(202)
  retry(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('deliveryId') deliveryId: string) {
    return this.subscriptions.retryDelivery(ctx.accountId, webhookId, deliveryId);
  }

  @Post(':webhookId/rotateSecret')
  @HttpCode(200)
  rotateSecret(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string) {
    return this.subscriptions.rotateSecret(ctx.accountId, webhookId);
  }
}
