import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { enqueueBestEffort } from '../../platform/queue/enqueue-best-effort';

export const LEGACY_BATCH_QUEUE = 'legacy-batch';

export interface LegacyBatchJobData {
  batchId: string;
}

/** Finished jobs go (the batch row is the truth); a job that throws is tried again a few times before the sweep takes over. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;

/**
 * Producer side of batch processing (API): one job per acknowledged batch, added after the batch's
 * transaction commits, with the batch id as job id. Only the fast path: the worker's sweep processes
 * any batch whose job was lost (Redis down, worker killed).
 */
@Injectable()
export class LegacyQueue {
  private readonly logger = new Logger(LegacyQueue.name);

  constructor(@InjectQueue(LEGACY_BATCH_QUEUE) private readonly queue: Queue<LegacyBatchJobData>) {}

  /** Best effort (enqueueBestEffort: never throws, bounded wait): the sweep processes a batch whose job was lost. */
  async enqueue(batchId: string): Promise<void> {
    await enqueueBestEffort(
      () => this.queue.add('process', { batchId }, { jobId: batchId, ...JOB_OPTIONS }),
      this.logger,
      `enqueueing legacy batch ${batchId} failed (the sweep will process it)`,
    );
  }
}
