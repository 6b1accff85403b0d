import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { QueueWorkers } from '../../platform/queue/queue-worker';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LEGACY_BATCH_QUEUE, LegacyBatchJobData } from './legacy-queue.service';

/** Batches processed at once per worker process (each applies its records one after another). */
const CONCURRENCY = 4;
const CLOSE_WITHIN_MS = 5_000;

/** Runs the legacy batch jobs (worker only): the fast path after a batch is acknowledged; the sweep is the guarantee. */
@Injectable()
export class LegacyBatchProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(LegacyBatchProcessor.name);

  constructor(
    private readonly processing: LegacyBatchProcessingService,
    private readonly workers: QueueWorkers,
  ) {}

  onApplicationBootstrap(): void {
    this.workers.start<LegacyBatchJobData>(
      LEGACY_BATCH_QUEUE,
      async (job) => {
        await this.processing.process(job.data.batchId);
      },
      { concurrency: CONCURRENCY, closeWithinMs: CLOSE_WITHIN_MS },
      this.logger,
    );
  }
}
