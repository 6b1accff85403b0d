import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookQueueModule } from './webhook-queue.module';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './subscriptions/webhook-subscriptions.service';
import { ReceiverAuthSettings } from './subscriptions/receiver-auth-settings';
import { LegacyWebhookService } from './subscriptions/legacy-webhook.service';
import { WebhookDeliveryRequestsService } from './subscriptions/webhook-delivery-requests.service';
import { EventsModule } from '../events/events.module';
import { WebhookReplaysService } from './replay/webhook-replays.service';
import { WebhookReplaysRepository } from './webhook-replays.repository';
import { WebhookReplaySelector } from './replay/webhook-replay-selector';

/** The API side of webhooks: subscriptions, test deliveries, the delivery log, retries and replays. The worker side is WebhooksWorkerModule. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSubscriptionEntity, WebhookDeliveryEntity]), NetModule, WebhookQueueModule, EventsModule],
  providers: [
    WebhookSubscriptionsService,
    ReceiverAuthSettings,
    WebhookSubscriptionsRepository,
    WebhookDeliveriesRepository,
    WebhookReplaysService,
    WebhookReplaysRepository,
    WebhookReplaySelector,
    LegacyWebhookService,
    WebhookDeliveryRequestsService,
  ],
  // The legacy module's webhook routes (PUT/GET/DELETE /legacy/webhook, its deliveries); the console's delivery page.
  exports: [WebhookSubscriptionsService, WebhookReplaysService, LegacyWebhookService, WebhookDeliveryRequestsService],
})
export class WebhooksModule {}
