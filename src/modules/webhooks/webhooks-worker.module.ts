import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { NetModule } from '../../platform/net/net.module';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { WebhookDeliveryService } from './delivery/webhook-delivery.service';
import { WebhookDispatchProcessor } from './dispatch/webhook-dispatch.processor';
import { WebhookDispatchService } from './dispatch/webhook-dispatch.service';
import { WEBHOOK_MAINTENANCE_QUEUE, WebhookMaintenanceProcessor } from './maintenance/webhook-maintenance.processor';
import { WebhookQueueModule } from './webhook-queue.module';
import { WebhookRetentionService } from './maintenance/webhook-retention.service';
import { WebhookSweepService } from './maintenance/webhook-sweep.service';

/** The webhook engine in the worker process: dispatch, delivery, sweep and retention. Never imported by the API. */
@Module({
  imports: [EventsModule, NetModule, WebhookQueueModule, BullModule.registerQueue({ name: WEBHOOK_MAINTENANCE_QUEUE })],
  providers: [
    WebhookDeliveriesRepository,
    WebhookDispatchService,
    WebhookDeliveryService,
    WebhookSweepService,
    WebhookRetentionService,
    WebhookDispatchProcessor,
    WebhookDeliveryProcessor,
    WebhookMaintenanceProcessor,
  ],
})
export class WebhooksWorkerModule {}
