import { getQueueToken } from '@nestjs/bullmq';
import { Module, Provider } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueShutdown } from '../../platform/queue/queue-shutdown';
import { openQueue, queueProvider } from '../../platform/queue/queue.provider';
import { EventsModule } from '../events/events.module';
import { deliveryQueueNames } from './delivery-queues';
import {
  WEBHOOK_DELIVERY_QUEUE,
  WEBHOOK_DELIVERY_QUEUES,
  WEBHOOK_DISPATCH_QUEUE,
  WEBHOOK_REPLAY_QUEUE,
  WebhookQueue,
} from './webhook-queue.service';

/** The delivery queues (WEBHOOK_DELIVERY_QUEUES of them), each under its chosen hash tag (delivery-queues.ts). */
const deliveryQueues: Provider = {
  provide: WEBHOOK_DELIVERY_QUEUES,
  inject: [APP_CONFIG, QueueShutdown],
  useFactory: (config: AppConfig, shutdown: QueueShutdown) =>
    deliveryQueueNames(config.webhook.deliveryQueues).map(({ name, hashTag }) => openQueue(name, config, shutdown, hashTag)),
};

/** The first delivery queue under @nestjs/bullmq's token too (the dashboard and the worker's metrics find queues by it). */
const firstDeliveryQueue: Provider = {
  provide: getQueueToken(WEBHOOK_DELIVERY_QUEUE),
  inject: [WEBHOOK_DELIVERY_QUEUES],
  useFactory: (queues: unknown[]) => queues[0],
};

/**
 * The webhook queues the API adds jobs to (producer side only, no processors), imported by the API
 * through WebhooksModule and by the worker through WebhooksWorkerModule; WebhookQueue closes them.
 * The sweep and retention use no queue: they run on the worker's in-process scheduler
 * (src/platform/scheduling).
 */
const queues = [queueProvider(WEBHOOK_DISPATCH_QUEUE), deliveryQueues, firstDeliveryQueue, queueProvider(WEBHOOK_REPLAY_QUEUE)];

@Module({
  imports: [EventsModule],
  providers: [...queues, WebhookQueue],
  exports: [WebhookQueue, ...queues],
})
export class WebhookQueueModule {}
