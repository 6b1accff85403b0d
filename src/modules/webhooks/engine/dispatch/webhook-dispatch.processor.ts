import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { WebhookDispatchService } from './webhook-dispatch.service';
import { DispatchJobData, WEBHOOK_DISPATCH_QUEUE } from '../../webhook-queue.service';
import { QueueProcessor } from '../../../../platform/queue/queue-processor';

/** Dispatch jobs taken at once; the service coalesces them into a few transactions. */
const DISPATCH_CONCURRENCY = 50;

/** Fans committed events out to delivery rows (worker only). */
@Injectable()
export class WebhookDispatchProcessor extends QueueProcessor<DispatchJobData> {
  constructor(private readonly dispatcher: WebhookDispatchService) {
    super(WEBHOOK_DISPATCH_QUEUE, { concurrency: DISPATCH_CONCURRENCY });
  }

  protected async process(job: Job<DispatchJobData>): Promise<void> {
    await this.dispatcher.dispatchOne(job.data.eventId);
  }
}
