import { Logger } from '@nestjs/common';
import { Processor, Worker } from 'bullmq';
import { AppConfig } from '../../config/config';
import { redisConnectionOptions } from '../redis/redis-connection';

/**
 * Opens a BullMQ worker on a queue (worker process only), on the process's Redis connection and
 * prefix, logging failed jobs and worker errors. Processors build their workers with this rather than
 * @nestjs/bullmq's @Processor/WorkerHost, whose worker options are fixed when the decorator is
 * evaluated: concurrency and lock duration here come from config (lockDuration also sets the lock
 * renewal period at construction, so it cannot be changed on a running worker).
 */
export function startQueueWorker<T>(
  config: AppConfig,
  queueName: string,
  process: Processor<T>,
  options: { concurrency: number; lockDuration?: number },
  logger: Logger,
): Worker<T> {
  const worker = new Worker<T>(queueName, process, {
    connection: redisConnectionOptions(config.redisUrl),
    prefix: config.redisPrefix,
    ...options,
  });
  worker.on('failed', (job, error) => logger.warn(`${queueName} job ${job?.name} ${job?.id} failed: ${error.message}`));
  worker.on('error', (error) => logger.error(`${queueName} worker: ${error.message}`));
  return worker;
}
