import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, Job, Processor, Worker } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseOutages } from '../database/database-outages';
import { bullMqConnection } from '../redis/redis-factory';
import { Metrics } from '../metrics/metrics';
import { watchBullMqOutages } from '../redis/redis-outages';
import { queuePrefix } from './queue-prefix';
import { QueueShutdown } from './queue-shutdown';
import { QueueWatchdog, WatchdogState } from './queue-watchdog';
import { queueTelemetry } from '../tracing/tracing';

/** After losing Redis, a worker's fetch loop tries again after this (BullMQ's default is 15 s). */
export const WORKER_RUN_RETRY_DELAY_MS = 1_000;

/** A worker idle this long (at least; longer when its jobs may take longer) with jobs waiting is stuck (QueueWatchdog). */
export const WATCHDOG_MIN_IDLE_MS = 15_000;

/** A job that met the database unreachable runs again after this, plus up to as much jitter. */
export const DATABASE_OUTAGE_JOB_DELAY_MS = 1_000;

/** How a queue's worker runs: BullMQ's options that vary by queue, and how long shutdown waits for its running jobs. */
export interface QueueWorkerOptions {
  concurrency: number;
  lockDuration?: number;
  stalledInterval?: number;
  /** At shutdown, the longest its running jobs may take to finish (never waiting on a Redis that is down). */
  closeWithinMs: number;
  /** The queue's hash tag when it is not its name (queuePrefix). */
  hashTag?: string;
}

/**
 * Opens the process's BullMQ workers (worker process only), on the process's Redis connection and
 * prefix, logging failed jobs, and Redis outages as one line each; jobs that meet a database outage
 * wait it out (retryingOutages); each job's run time goes into
 * pop_queue_job_duration_seconds, and each worker is closed by QueueShutdown. Processors build their
 * workers with this rather than @nestjs/bullmq's @Processor/WorkerHost, whose worker options are fixed
 * when the decorator is evaluated: concurrency and lock duration here come from config (lockDuration
 * also sets the lock renewal period at construction, so it cannot be changed on a running worker).
 */
@Injectable()
export class QueueWorkers {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly shutdown: QueueShutdown,
    private readonly databaseOutages: DatabaseOutages,
  ) {}

  private readonly watchdogs: QueueWatchdog[] = [];

  /** Each worker's watchdog state (when it last moved a job, how often it recovered). */
  watchdogStates(): WatchdogState[] {
    return this.watchdogs.map((watchdog) => watchdog.state);
  }

  start<T>(queueName: string, process: Processor<T>, options: QueueWorkerOptions, logger: Logger): Worker<T> {
    const { closeWithinMs, hashTag = queueName, ...workerOptions } = options;
    const { connection, owned } = bullMqConnection(this.config.redis);
    const worker = new Worker<T>(queueName, this.retryingOutages(process), {
      connection,
      prefix: queuePrefix(this.config.redisPrefix, hashTag),
      runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
      // The process taking a job, as the job's processedBy (bull-board, tests): which process held a job it left.
      name: workerName(),
      telemetry: queueTelemetry(),
      ...workerOptions,
    });
    worker.on('failed', (job, error) => logger.warn(`${queueName} job ${job?.name} ${job?.id} failed: ${error.message}`));
    watchBullMqOutages(worker, `${queueName} worker`, logger);
    const duration = this.metrics.queueJobDuration;
    const observe = (job: { processedOn?: number; finishedOn?: number } | undefined, result: string) => {
      if (job?.processedOn && job.finishedOn) duration.observe({ queue: queueName, result }, (job.finishedOn - job.processedOn) / 1000);
    };
    worker.on('completed', (job) => observe(job, 'completed'));
    worker.on('failed', (job) => observe(job, 'failed'));
    this.shutdown.closeWorkerOnShutdown(worker, closeWithinMs, owned);
    // Idle past its longest job (closeWithinMs bounds a job's run) with jobs waiting: logged, and it fetches again.
    const watchdog = new QueueWatchdog(worker, queueName, Math.max(closeWithinMs, WATCHDOG_MIN_IDLE_MS), logger, this.metrics);
    this.watchdogs.push(watchdog);
    return worker;
  }

  /**
   * A job that fails because the database is unreachable goes back to delayed, without using up one of
   * its attempts (many queues have one), and runs again about a second later: work waits out an outage
   * of any length instead of being lost to it. The outage is logged once (DatabaseOutages), not per job.
   */
  private retryingOutages<T>(process: Processor<T>): Processor<T> {
    return async (job: Job<T>, token?: string, signal?: AbortSignal) => {
      try {
        return await process(job, token, signal);
      } catch (error) {
        if (!this.databaseOutages.noted(error)) throw error;
        await job.moveToDelayed(Date.now() + DATABASE_OUTAGE_JOB_DELAY_MS * (1 + Math.random()), token);
        throw new DelayedError();
      }
    };
  }
}

/** A worker process's name in BullMQ: `<host>:<pid>`. */
export function workerName(pid = process.pid): string {
  return `${hostname()}:${pid}`;
}
