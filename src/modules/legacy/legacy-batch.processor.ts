import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { QueueProcessor } from '../../platform/queue/queue-processor';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LEGACY_BATCH_QUEUE, LegacyBatchJobData } from './legacy-queue.service';

/** Batches processed at once per worker process (each applies its records one after another). */
const CONCURRENCY = 4;

/** Runs the legacy batch jobs (worker only): the fast path after a batch is acknowledged; the sweep is the guarantee. */
@Injectable()
export class LegacyBatchProcessor extends QueueProcessor<LegacyBatchJobData> {
  constructor(private readonly processing: LegacyBatchProcessingService) {
    super(LEGACY_BATCH_QUEUE, { concurrency: CONCURRENCY });
  }

  protected async process(job: Job<LegacyBatchJobData>): Promise<void> {
    await this.processing.process(job.data.batchId);
  }
}
