import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { DeliveryJobData, WEBHOOK_DELIVERY_QUEUE } from '../webhook-queue.service';
import { QueueWorkers } from '../../../platform/queue/queue-worker';

/** Time for running attempts to record their outcome once their POST ended, at shutdown. */
const RECORD_WITHIN_MS = 2_000;

/**
 * Runs delivery attempts (worker only). The job lock must outlast the HTTP time-out, or a live
 * attempt would be taken for stalled and run twice.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryService,
    private readonly workers: QueueWorkers,
  ) {}

  onApplicationBootstrap(): void {
    const { deliveryConcurrency, timeoutMs } = this.config.webhook;
    this.workers.start<DeliveryJobData>(
      WEBHOOK_DELIVERY_QUEUE,
      (job, token) => this.process(job, token),
      {
        concurrency: deliveryConcurrency,
        lockDuration: timeoutMs + 30_000,
        closeWithinMs: timeoutMs + RECORD_WITHIN_MS,
      },
      this.logger,
    );
  }

  private async process(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    const { subscriptionId } = job.data;
    // A saturated subscription's job is parked before any query; otherwise after loading (see the service).
    if (subscriptionId && this.deliveries.isSaturated(subscriptionId)) return this.park(job, subscriptionId, token);
    const result = await this.deliveries.attempt(job.data);
    if (result.kind === 'busy') return this.park(job, result.subscriptionId, token);
  }

  /** Moves the job back to delayed without using up one of its attempts, freeing this worker slot. */
  private async park(job: Job<DeliveryJobData>, subscriptionId: string, token?: string): Promise<never> {
    await job.moveToDelayed(Date.now() + this.deliveries.parkDelayMs(subscriptionId), token);
    throw new DelayedError();
  }
}
