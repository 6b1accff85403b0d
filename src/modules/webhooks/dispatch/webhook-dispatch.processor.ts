import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookDispatchService } from './webhook-dispatch.service';
import { DispatchJobData, WEBHOOK_DISPATCH_QUEUE } from '../webhook-queue.service';
import { QueueWorkers } from '../../../platform/queue/queue-worker';

/** Dispatch jobs taken at once; the service coalesces them into a few transactions. */
const DISPATCH_CONCURRENCY = 50;
/** Shutdown waits this long for running dispatch transactions (and never for a Redis that is down). */
const CLOSE_WITHIN_MS = 5_000;

/** Fans committed events out to delivery rows (worker only). */
@Injectable()
export class WebhookDispatchProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDispatchProcessor.name);

  constructor(
    private readonly dispatcher: WebhookDispatchService,
    private readonly workers: QueueWorkers,
  ) {}

  onApplicationBootstrap(): void {
    this.workers.start<DispatchJobData>(
      WEBHOOK_DISPATCH_QUEUE,
      (job) => this.dispatcher.dispatchOne(job.data.eventId),
      { concurrency: DISPATCH_CONCURRENCY, closeWithinMs: CLOSE_WITHIN_MS },
      this.logger,
    );
  }
}
