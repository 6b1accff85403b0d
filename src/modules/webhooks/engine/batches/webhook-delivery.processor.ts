import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { deliveryQueueNames } from '../../delivery-queues';
import { BatchWake, DeliveryJobData } from '../../webhook-queue.service';
import { QueueWorkers } from '../../../../platform/queue/queue-worker';
import { WebhookBatches } from './webhook-batches.service';
import { RECORD_WITHIN_MS } from '../pipeline/webhook-attempt-pipeline.service';

/**
 * Runs the delivery queue (worker only) through WebhookBatches: `batch` jobs wake a subscription's batch
 * loop, `deliver` jobs are single attempts (scheduled retries, test deliveries, POST …/retry, the sweep's
 * re-sends). The job lock must outlast the HTTP time-out, or a live attempt would be taken for stalled
 * and run twice.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly batches: WebhookBatches,
    private readonly workers: QueueWorkers,
  ) {}

  onApplicationBootstrap(): void {
    const { deliveryConcurrency, deliveryQueues, timeoutMs } = this.config.webhook;
    // One worker per delivery queue (WEBHOOK_DELIVERY_QUEUES); the process's concurrency is shared among them.
    for (const { name, hashTag } of deliveryQueueNames(deliveryQueues)) {
      const worker = this.workers.start<DeliveryJobData | BatchWake>(
        name,
        (job, token) => this.process(job, token),
        {
          concurrency: Math.ceil(deliveryConcurrency / deliveryQueues),
          lockDuration: timeoutMs + 30_000,
          closeWithinMs: timeoutMs + RECORD_WITHIN_MS,
          hashTag,
        },
        this.logger,
      );
      // Closing: batch loops stop claiming (what they started finishes within the bound above).
      worker.on('closing', () => this.batches.stop());
    }
  }

  private async process(job: Job<DeliveryJobData | BatchWake>, token?: string): Promise<void> {
    const result = await this.batches.runJob(job);
    if (result.kind === 'parked') return this.park(job, result.delayMs, token);
  }

  /** Moves the job back to delayed without using up one of its attempts, freeing this worker slot. */
  private async park(job: Job, delayMs: number, token?: string): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
}
