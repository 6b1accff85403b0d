import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import { QueueWorkerOptions, QueueWorkers } from './queue-worker';

/**
 * A queue's processor (worker process only): once the app has bootstrapped it starts the queue's worker
 * (QueueWorkers.start: config-driven options, failures and outages logged, bounded close) and runs `process`
 * for each job. A subclass says which queue, how its worker runs and what a job does.
 */
export abstract class QueueProcessor<T> implements OnApplicationBootstrap {
  protected readonly logger = new Logger(this.constructor.name);

  protected constructor(
    private readonly workers: QueueWorkers,
    private readonly queueName: string,
  ) {}

  /** Read at bootstrap, so options may come from config. */
  protected abstract workerOptions(): QueueWorkerOptions;

  /** One job; a throw fails it (BullMQ retries by the job's options), DelayedError after moveToDelayed parks it. */
  protected abstract process(job: Job<T>, token?: string): Promise<void>;

  onApplicationBootstrap(): void {
    this.workers.start<T>(this.queueName, (job, token) => this.process(job, token), this.workerOptions(), this.logger);
  }
}
