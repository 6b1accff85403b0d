import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Worker } from 'bullmq';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { WebhookDispatchService } from './webhook-dispatch.service';
import { DispatchJobData, WEBHOOK_DISPATCH_QUEUE } from '../webhook-queue.service';
import { Metrics } from '../../../platform/metrics/metrics';
import { startQueueWorker } from '../../../platform/queue/queue-worker';
import { QueueShutdown } from '../../../platform/queue/queue-shutdown';

/** Dispatch jobs taken at once; the service coalesces them into a few transactions. */
const DISPATCH_CONCURRENCY = 50;
/** Shutdown waits this long for running dispatch transactions (and never for a Redis that is down). */
const CLOSE_WITHIN_MS = 5_000;

/** Fans committed events out to delivery rows (worker only). */
@Injectable()
export class WebhookDispatchProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDispatchProcessor.name);
  private worker?: Worker<DispatchJobData>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dispatcher: WebhookDispatchService,
    private readonly metrics: Metrics,
    private readonly shutdown: QueueShutdown,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = startQueueWorker<DispatchJobData>(
      this.config,
      WEBHOOK_DISPATCH_QUEUE,
      (job) => this.dispatcher.dispatchOne(job.data.eventId),
      { concurrency: DISPATCH_CONCURRENCY },
      this.logger,
      this.metrics,
    );
    this.shutdown.closeWorkerOnShutdown(this.worker, CLOSE_WITHIN_MS);
  }
}
