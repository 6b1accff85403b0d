import { Inject, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueWorkerOptions, QueueWorkers } from './queue-worker';

/** Shutdown waits this long for a queue's running jobs unless its processor says otherwise (never for a Redis that is down). */
export const DEFAULT_CLOSE_WITHIN_MS = 5_000;

type ProcessorWorkerOptions = Omit<QueueWorkerOptions, 'closeWithinMs'> & Partial<Pick<QueueWorkerOptions, 'closeWithinMs'>>;

/** A queue worker's options, or how to read them from config (read at bootstrap). */
export type QueueProcessorOptions = ProcessorWorkerOptions | ((config: AppConfig) => ProcessorWorkerOptions);

/**
 * A queue's processor (worker process only): once the app has bootstrapped it starts the queue's worker
 * (QueueWorkers.start: config-driven options, failures and outages logged, bounded close) and runs `process`
 * for each job. A subclass says which queue and how its worker runs (to `super`) and what a job does; the
 * workers and the config are injected here (as properties), so its constructor names only its own services.
 */
export abstract class QueueProcessor<T> implements OnApplicationBootstrap {
  protected readonly logger = new Logger(this.constructor.name);
  @Inject(QueueWorkers) private readonly workers!: QueueWorkers;
  @Inject(APP_CONFIG) private readonly config!: AppConfig;

  protected constructor(
    private readonly queueName: string,
    private readonly options: QueueProcessorOptions,
  ) {}

  /** One job; a throw fails it (BullMQ retries by the job's options), DelayedError after moveToDelayed parks it. */
  protected abstract process(job: Job<T>, token?: string): Promise<void>;

  onApplicationBootstrap(): void {
    const options = typeof this.options === 'function' ? this.options(this.config) : this.options;
    const bounded = { closeWithinMs: DEFAULT_CLOSE_WITHIN_MS, ...options };
    this.workers.start<T>(this.queueName, (job, token) => this.process(job, token), bounded, this.logger);
  }
}
