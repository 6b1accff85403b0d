import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { Pacer } from '../../platform/redis/pacer';
import { SchedulingModule } from '../../platform/scheduling/scheduling.module';
import { EventsModule } from '../events/events.module';
import { WebhookAdmission } from './engine/admission/webhook-admission.service';
import { WebhookPacing } from './engine/admission/webhook-pacing.service';
import { WebhookBatches } from './engine/batches/webhook-batches.service';
import { WebhookDeliveryProcessor } from './engine/batches/webhook-delivery.processor';
import { WebhookClaims } from './engine/claims/webhook-claims.service';
import { WebhookClaimsRepository } from './engine/claims/webhook-claims.repository';
import { WebhookEnvelopeSources } from './engine/claims/webhook-envelope-sources';
import { WebhookDispatchProcessor } from './engine/dispatch/webhook-dispatch.processor';
import { WebhookDispatchService } from './engine/dispatch/webhook-dispatch.service';
import { PartitionUpkeepService } from './engine/maintenance/partition-upkeep.service';
import { WebhookMaintenanceSchedule } from './engine/maintenance/webhook-maintenance.schedule';
import { WebhookRetentionService } from './engine/maintenance/webhook-retention.service';
import { WebhookSecretsService } from './engine/maintenance/webhook-secrets.service';
import { BrokerPasswordUpkeep } from './engine/maintenance/broker-password-upkeep';
import { ReceiverAuthUpkeep } from './engine/maintenance/receiver-auth-upkeep';
import { WebhookSweepService } from './engine/maintenance/webhook-sweep.service';
import { WebhookAttemptPipeline } from './engine/pipeline/webhook-attempt-pipeline.service';
import { WebhookReplayProcessor } from './engine/replay/webhook-replay.processor';
import { WebhookReplayRunner } from './engine/replay/webhook-replay-runner.service';
import { DeliverySigningSecrets } from './engine/sending/delivery-signing-secrets';
import { WebhookPoster } from './engine/sending/webhook-poster';
import { AmqpConnections } from './engine/sending/amqp-connections';
import { AmqpPublisher } from './engine/sending/amqp-publisher';
import { WebhookDestinations } from './engine/sending/webhook-destination';
import { ReceiverAuth } from './engine/sending/receiver-auth';
import { ReceiverTokens } from './engine/sending/receiver-tokens';
import { WebhookAttemptRecords } from './engine/settlement/webhook-attempt-records.service';
import { WebhookAttemptsRepository } from './engine/settlement/webhook-attempts.repository';
import { WebhookOperationalEvents } from './engine/settlement/webhook-operational-events.service';
import { WebhookReplaySelector } from './replay/webhook-replay-selector';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { Sql } from '../../platform/database/sql';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookQueueModule } from './webhook-queue.module';
import { WebhookReplaysRepository } from './webhook-replays.repository';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

/**
 * The webhook engine in the worker process (`engine/`): dispatch, the delivery queue's batches and
 * single attempts through the attempt pipeline and the owners of its steps, replays' runs, the sweep and
 * retention. Never imported by the API.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookSubscriptionEntity, WebhookDeliveryEntity]),
    EventsModule,
    NetModule,
    SchedulingModule,
    WebhookQueueModule,
  ],
  providers: [
    // Prepared statements (an ordered subscription's claim: planned once per connection).
    Sql,
    // What the engine shares with the API side.
    WebhookDeliveriesRepository,
    WebhookSubscriptionsRepository,
    WebhookReplaysRepository,
    WebhookReplaySelector,
    // Dispatch, and the delivery queue's jobs.
    WebhookDispatchService,
    WebhookDispatchProcessor,
    WebhookBatches,
    WebhookDeliveryProcessor,
    // The attempt pipeline and the owners of its steps.
    WebhookAttemptPipeline,
    WebhookClaims,
    WebhookClaimsRepository,
    WebhookEnvelopeSources,
    WebhookAdmission,
    WebhookPacing,
    Pacer,
    DeliverySigningSecrets,
    WebhookPoster,
    // The send step's other destination (issue 43): RabbitMQ, one connection per broker.
    AmqpConnections,
    AmqpPublisher,
    WebhookDestinations,
    ReceiverAuth,
    ReceiverTokens,
    WebhookAttemptRecords,
    WebhookAttemptsRepository,
    WebhookOperationalEvents,
    // Replays' runs, and periodic work.
    WebhookReplayRunner,
    WebhookReplayProcessor,
    WebhookSweepService,
    WebhookRetentionService,
    PartitionUpkeepService,
    WebhookSecretsService,
    BrokerPasswordUpkeep,
    ReceiverAuthUpkeep,
    WebhookMaintenanceSchedule,
  ],
})
export class WebhooksWorkerModule {}
