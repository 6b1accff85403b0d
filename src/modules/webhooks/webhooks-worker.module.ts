import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { SchedulingModule } from '../../platform/scheduling/scheduling.module';
import { EventsModule } from '../events/events.module';
import { WebhookAttemptsRepository } from './webhook-attempts.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { DeliverySigningSecrets } from './delivery/delivery-signing-secrets';
import { WebhookDeliveryService } from './delivery/webhook-delivery.service';
import { WebhookPoster } from './delivery/webhook-poster';
import { WebhookBatches } from './delivery/webhook-batches.service';
import { WebhookPacing } from './delivery/webhook-pacing.service';
import { WebhookEnvelopeSources } from './delivery/webhook-envelope-sources';
import { Pacer } from '../../platform/redis/pacer';
import { WebhookOperationalEvents } from './delivery/webhook-operational-events.service';
import { WebhookDispatchProcessor } from './dispatch/webhook-dispatch.processor';
import { WebhookDispatchService } from './dispatch/webhook-dispatch.service';
import { WebhookMaintenanceSchedule } from './maintenance/webhook-maintenance.schedule';
import { WebhookQueueModule } from './webhook-queue.module';
import { WebhookRetentionService } from './maintenance/webhook-retention.service';
import { PartitionUpkeepService } from './maintenance/partition-upkeep.service';
import { WebhookSweepService } from './maintenance/webhook-sweep.service';
import { WebhookSecretsService } from './maintenance/webhook-secrets.service';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookReplaysRepository } from './webhook-replays.repository';
import { WebhookReplaySelector } from './replay/webhook-replay-selector';
import { WebhookReplayRunner } from './replay/webhook-replay-runner.service';
import { WebhookReplayProcessor } from './replay/webhook-replay.processor';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

/** The webhook engine in the worker process: dispatch, delivery, sweep and retention. Never imported by the API. */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookSubscriptionEntity, WebhookDeliveryEntity]),
    EventsModule,
    NetModule,
    SchedulingModule,
    WebhookQueueModule,
  ],
  providers: [
    WebhookDeliveriesRepository,
    WebhookAttemptsRepository,
    WebhookSubscriptionsRepository,
    WebhookSecretsService,
    WebhookDispatchService,
    DeliverySigningSecrets,
    WebhookDeliveryService,
    WebhookBatches,
    WebhookPacing,
    WebhookEnvelopeSources,
    Pacer,
    WebhookOperationalEvents,
    WebhookPoster,
    WebhookSweepService,
    WebhookRetentionService,
    PartitionUpkeepService,
    WebhookDispatchProcessor,
    WebhookDeliveryProcessor,
    WebhookMaintenanceSchedule,
    WebhookReplaysRepository,
    WebhookReplaySelector,
    WebhookReplayRunner,
    WebhookReplayProcessor,
  ],
})
export class WebhooksWorkerModule {}
