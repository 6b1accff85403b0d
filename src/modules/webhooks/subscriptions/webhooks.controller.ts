import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { PostAction, PostQueued } from '../../../platform/http/post-routes';
import { RequestContext } from '../../../platform/context/request-context';
import { Ctx } from '../../../platform/http/request-context';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { ListDeliveriesQueryDto } from './dto/list-deliveries.dto';
import { TestWebhookDto } from './dto/test-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { RouteDoc, none, ok, page } from '../../../platform/openapi/route-doc';
import { WEBHOOK_EXAMPLES } from '../webhooks.examples';
import { CREATED_WEBHOOK_SUBSCRIPTION_SHAPE, ROTATED_SECRET_SHAPE, WEBHOOK_SUBSCRIPTION_SHAPE } from './webhook-subscription.response';
import { RETRIED_DELIVERY_SHAPE, TEST_DELIVERY_SHAPE, WEBHOOK_DELIVERY_SHAPE } from './webhook-delivery.response';

/** Webhook subscriptions, their test deliveries, delivery log and secret rotation (spec 4.8). */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @RouteDoc({
    summary: 'Subscribe a URL to events',
    description:
      'url must be https, a domain name that resolves to public addresses only (400 invalidWebhookUrl). One subscription per URL: 409 conflict with existingId. The signingSecret is returned only here and by rotateSecret. rateLimitPerSecond (an extension, 1-1000, null by default) caps the attempts started per second to the url across all workers; deliveries wait for their turn, they never fail for it. Extension: signatureSchemes ["v1", "v1a"] adds ed25519 signatures (v1a) beside the HMAC ones, verifiable with the publicKey returned. Extension: traceContext true sends each attempt a W3C traceparent header (off by default: a receiver is a third party). Extension (issue 42): headers, oauth2 and mtls authenticate our attempts to a receiver behind a gateway; they are written, never read back (reads redact them; docs/webhooks.md, "Receivers behind authentication"). Extension: ordered (default false) sends the deliveries one at a time in the events feed order, each after the one before it succeeded or ended for good; test deliveries and manual retries go outside the order (docs/webhooks.md, "Ordered endpoints"). Extension: a url amqps://user:password@host:5671/vhost with rabbitmq { exchange, routingKey? } publishes each delivery to that RabbitMQ exchange, confirmed (docs/webhooks.md, "Message broker destinations"); reads show the url without its password.',
    response: ok(CREATED_WEBHOOK_SUBSCRIPTION_SHAPE, 'The subscription with its signing secret.'),
    problems: [409],
    example: {
      body: {
        url: WEBHOOK_EXAMPLES.webhookUrl,
        eventFilters: ['property.*', 'jobRequest.*'],
        maxRetries: 5,
        ordered: false,
        headers: { 'X-Api-Key': 'sk_example_4f2a' },
      },
    },
  })
  @Post()
  create(@Ctx() ctx: RequestContext, @Body() body: CreateWebhookDto) {
    return this.subscriptions.create(ctx, body);
  }

  @RouteDoc({
    summary: 'List webhook subscriptions',
    description: 'Unpaginated; secrets are never included.',
    response: page(WEBHOOK_SUBSCRIPTION_SHAPE, 'Every subscription of the account.'),
  })
  @Get()
  list(@Ctx() ctx: RequestContext) {
    return this.subscriptions.list(ctx.accountId);
  }

  @RouteDoc({
    summary: 'Update a subscription',
    description:
      'eventFilters replaces the list; enabled: true clears disabledReason and the failure counter; a new url keeps the secret; rateLimitPerSecond (an extension) sets the pacing, null switches it off. Extension: signatureSchemes turns v1a on (a new key pair, its publicKey in the answer) or off (["v1"]: the keys are dropped). Extension: traceContext switches the traceparent header of attempts on or off. Extension (issue 42): headers, oauth2 and mtls each replace the whole option; null removes it. Extension: ordered turns ordered delivery on or off for the deliveries not attempted yet. Extension: rabbitmq changes the exchange and routing key of a broker destination (null with a move to an https url).',
    response: ok(WEBHOOK_SUBSCRIPTION_SHAPE, 'The updated subscription.'),
    problems: [409],
    example: { body: { eventFilters: ['*'], enabled: true, headers: { 'X-Api-Key': 'sk_example_7c1d' } } },
  })
  @Patch(':webhookId')
  update(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: UpdateWebhookDto) {
    return this.subscriptions.update(ctx, webhookId, body);
  }

  @RouteDoc({
    summary: 'Delete a subscription',
    description:
      'Deliveries to it stop at once, pending retries included; its delivery log and replays go with it. The events stay in the feed. Disabling (PATCH enabled: false) keeps everything instead.',
    response: none(),
  })
  @Delete(':webhookId')
  async remove(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string): Promise<void> {
    await this.subscriptions.remove(ctx, webhookId);
  }

  @RouteDoc({
    summary: 'Send a test delivery',
    description:
      'A synthetic payload flagged test: true, signed with the real secret, POSTed asynchronously; it shows in the delivery log, never in the events feed.',
    response: ok(TEST_DELIVERY_SHAPE, 'Queued.'),
    problems: [409],
    example: { body: { eventName: 'property.create' } },
  })
  @PostQueued(':webhookId/test')
  test(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Body() body: TestWebhookDto) {
    return this.subscriptions.sendTest(ctx, webhookId, body.eventName);
  }

  @RouteDoc({
    summary: "A subscription's delivery log",
    description:
      'Newest first; nextCursor is the last row id (pass the same filters with it). An unknown cursor is a 400: restart without it. Extension: status (pending, delivered, failed_permanent) and eventName keep the deliveries of that status and event.',
    response: page(WEBHOOK_DELIVERY_SHAPE, 'A page of deliveries.'),
    example: { query: { limit: 10, status: 'failed_permanent' } },
  })
  @Get(':webhookId/deliveries')
  deliveries(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Query() query: ListDeliveriesQueryDto) {
    return this.subscriptions.deliveries(ctx.accountId, webhookId, query);
  }

  @RouteDoc({
    summary: 'One delivery with every attempt (extension)',
    description:
      "Each attempt's status, error class, resolved address and timings (docs/webhooks.md). Another subscription's delivery is a 404.",
    response: ok(WEBHOOK_DELIVERY_SHAPE, 'The delivery.'),
  })
  @Get(':webhookId/deliveries/:deliveryId')
  delivery(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('deliveryId') deliveryId: string) {
    return this.subscriptions.delivery(ctx.accountId, webhookId, deliveryId);
  }

  @RouteDoc({
    summary: 'Retry one delivery now (extension)',
    description:
      'A finished delivery starts a new round of attempts (same webhook-id, the next webhook-retry-count, a fresh retry budget); a pending one waiting for its retry goes now. 409 while an attempt is in flight or the subscription is disabled.',
    response: ok(RETRIED_DELIVERY_SHAPE, 'Queued.'),
    problems: [409],
  })
  @PostQueued(':webhookId/deliveries/:deliveryId/retry')
  retry(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string, @Param('deliveryId') deliveryId: string) {
    return this.subscriptions.retryDelivery(ctx.accountId, webhookId, deliveryId);
  }

  @RouteDoc({
    summary: "Rotate a subscription's signing secret",
    description:
      'For 24 hours deliveries carry both signatures (new first); then only the new one. With v1a on, the ed25519 key rotates the same way: publicKey is the new one, the old one keeps signing for the same 24 hours.',
    response: ok(ROTATED_SECRET_SHAPE, 'The new secret.'),
  })
  @PostAction(':webhookId/rotateSecret')
  rotateSecret(@Ctx() ctx: RequestContext, @Param('webhookId') webhookId: string) {
    return this.subscriptions.rotateSecret(ctx.accountId, webhookId);
  }
}
