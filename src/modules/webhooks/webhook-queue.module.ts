import { Module } from '@nestjs/common';
import { queueProvider } from '../../platform/queue/queue.provider';
import { EventsModule } from '../events/events.module';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_DISPATCH_QUEUE, WEBHOOK_REPLAY_QUEUE, WebhookQueue } from './webhook-queue.service';

/**
 * The webhook queues the API adds jobs to (producer side only, no processors), imported by the API
 * through WebhooksModule and by the worker through WebhooksWorkerModule; WebhookQueue closes them.
 * The sweep and retention use no queue: they run on the worker's in-process scheduler
 * (src/platform/scheduling).
 */
const queues = [queueProvider(WEBHOOK_DISPATCH_QUEUE), queueProvider(WEBHOOK_DELIVERY_QUEUE), queueProvider(WEBHOOK_REPLAY_QUEUE)];

@Module({
  imports: [EventsModule],
  providers: [...queues, WebhookQueue],
  exports: [WebhookQueue, ...queues],
})
export class WebhookQueueModule {}
