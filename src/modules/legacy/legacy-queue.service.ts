import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { untilAborted } from '../../platform/async/until-aborted';

export const LEGACY_BATCH_QUEUE = 'legacy-batch';

export interface LegacyBatchJobData {
  batchId: string;
}

/** Finished jobs go (the batch row is the truth); a job that throws is tried again a few times before the sweep takes over. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;
const ADD_TIMEOUT_MS = 2_000;

/**
 * Producer side of batch processing (API): one job per acknowledged batch, added after the batch's
 * transaction commits, with the batch id as job id. Only the fast path: the worker's sweep processes
 * any batch whose job was lost (Redis down, worker killed).
 */
@Injectable()
export class LegacyQueue {
  private readonly logger = new Logger(LegacyQueue.name);

  constructor(@InjectQueue(LEGACY_BATCH_QUEUE) private readonly queue: Queue<LegacyBatchJobData>) {}

  /** Never throws and never waits on a Redis that is down for more than ADD_TIMEOUT_MS: the sweep catches up. */
  async enqueue(batchId: string): Promise<void> {
    const adding = this.queue.add('process', { batchId }, { jobId: batchId, ...JOB_OPTIONS });
    adding.catch(() => undefined); // a late failure after the deadline is the sweep's too
    try {
      await untilAborted(adding, AbortSignal.timeout(ADD_TIMEOUT_MS));
    } catch (error) {
      this.logger.warn(`enqueueing legacy batch ${batchId} failed (the sweep will process it): ${(error as Error).message}`);
    }
  }
}
