import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookQueueModule } from './webhook-queue.module';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { WebhooksController } from './webhooks.controller';

/** The API side of webhooks: subscriptions, test deliveries, the delivery log. The worker side is WebhooksWorkerModule. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSubscriptionEntity, WebhookDeliveryEntity]), NetModule, WebhookQueueModule],
  controllers: [WebhooksController],
  providers: [WebhookSubscriptionsService, WebhookSubscriptionsRepository],
})
export class WebhooksModule {}
