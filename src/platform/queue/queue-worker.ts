import { Logger } from '@nestjs/common';
import { Processor, Worker } from 'bullmq';
import { AppConfig } from '../../config/config';
import { redisConnectionOptions } from '../redis/redis-connection';
import { Metrics } from '../metrics/metrics';
import { watchBullMqOutages } from '../redis/redis-outages';

/** After losing Redis, a worker's fetch loop tries again after this (BullMQ's default is 15 s). */
export const WORKER_RUN_RETRY_DELAY_MS = 1_000;

/**
 * Opens a BullMQ worker on a queue (worker process only), on the process's Redis connection and
 * prefix, logging failed jobs, and Redis outages as one line each; each job's run time goes into
 * pop_queue_job_duration_seconds. Processors build their workers
 * with this rather than @nestjs/bullmq's @Processor/WorkerHost, whose worker options are fixed when
 * the decorator is evaluated: concurrency and lock duration here come from config (lockDuration also
 * sets the lock renewal period at construction, so it cannot be changed on a running worker).
 */
export function startQueueWorker<T>(
  config: AppConfig,
  queueName: string,
  process: Processor<T>,
  options: { concurrency: number; lockDuration?: number; stalledInterval?: number },
  logger: Logger,
  metrics: Metrics,
): Worker<T> {
  const worker = new Worker<T>(queueName, process, {
    connection: redisConnectionOptions(config.redisUrl),
    prefix: config.redisPrefix,
    runRetryDelay: WORKER_RUN_RETRY_DELAY_MS,
    ...options,
  });
  worker.on('failed', (job, error) => logger.warn(`${queueName} job ${job?.name} ${job?.id} failed: ${error.message}`));
  watchBullMqOutages(worker, `${queueName} worker`, logger);
  const duration = metrics.queueJobDuration;
  const observe = (job: { processedOn?: number; finishedOn?: number } | undefined, result: string) => {
    if (job?.processedOn && job.finishedOn) duration.observe({ queue: queueName, result }, (job.finishedOn - job.processedOn) / 1000);
  };
  worker.on('completed', (job) => observe(job, 'completed'));
  worker.on('failed', (job) => observe(job, 'failed'));
  return worker;
}

/**
 * Closes a BullMQ queue or worker (a worker first lets its running jobs finish), waiting at most
 * `withinMs`: closing sends QUIT, which waits for Redis forever while it is down. Past the bound its
 * connection is dropped without waiting (a disconnect during a reconnect never settles either) and
 * shutdown goes on; true when it closed in time.
 */
export async function closeWithin(
  target: { waitUntilReady(): Promise<unknown>; close(): Promise<void>; disconnect(): Promise<void> },
  withinMs: number,
): Promise<boolean> {
  // Closed while still connecting, BullMQ emits the aborted connect as an error nobody hears any more
  // (an unhandled rejection): it is let finish connecting first, within the same bound.
  const closed = target
    .waitUntilReady()
    .then(
      () => target.close(),
      () => target.close(),
    )
    .then(
      () => true,
      () => true,
    );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
  const inTime = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (!inTime) target.disconnect().catch(() => undefined);
  return inTime;
}
