import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Worker } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../../platform/metrics/metrics';
import { startQueueWorker } from '../../platform/queue/queue-worker';
import { QueueShutdown } from '../../platform/queue/queue-shutdown';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LEGACY_BATCH_QUEUE, LegacyBatchJobData } from './legacy-queue.service';

/** Batches processed at once per worker process (each applies its records one after another). */
const CONCURRENCY = 4;
const CLOSE_WITHIN_MS = 5_000;

/** Runs the legacy batch jobs (worker only): the fast path after a batch is acknowledged; the sweep is the guarantee. */
@Injectable()
export class LegacyBatchProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(LegacyBatchProcessor.name);
  private worker?: Worker<LegacyBatchJobData>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly processing: LegacyBatchProcessingService,
    private readonly metrics: Metrics,
    private readonly shutdown: QueueShutdown,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = startQueueWorker<LegacyBatchJobData>(
      this.config,
      LEGACY_BATCH_QUEUE,
      async (job) => {
        await this.processing.process(job.data.batchId);
      },
      { concurrency: CONCURRENCY },
      this.logger,
      this.metrics,
    );
    this.shutdown.closeWorkerOnShutdown(this.worker, CLOSE_WITHIN_MS);
  }
}
