import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_DISPATCH_QUEUE, WebhookQueue } from './webhook-queue.service';

/**
 * The webhook queues the API adds jobs to (producer side only, no processors), imported by the API
 * through WebhooksModule and by the worker through WebhooksWorkerModule. The sweep and retention
 * use no queue: they run on the worker's in-process scheduler (src/platform/scheduling).
 */
@Module({
  imports: [EventsModule, BullModule.registerQueue({ name: WEBHOOK_DISPATCH_QUEUE }, { name: WEBHOOK_DELIVERY_QUEUE })],
  providers: [WebhookQueue],
  exports: [WebhookQueue, BullModule],
})
export class WebhookQueueModule {}
