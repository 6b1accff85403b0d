import { getQueueToken } from '@nestjs/bullmq';
import { Logger, Provider } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { bullMqConnection } from '../redis/redis-factory';
import { watchBullMqOutages } from '../redis/redis-outages';
import { queuePrefix } from './queue-prefix';
import { QueueShutdown } from './queue-shutdown';
import { queueTelemetry } from '../tracing/tracing';

/**
 * A BullMQ queue to add jobs to, under @nestjs/bullmq's token (so @InjectQueue finds it), on the
 * process's Redis (src/platform/redis/redis-factory.ts) and the queue's prefix (queuePrefix), its outages logged as one line each. Not BullModule.registerQueue:
 * @nestjs/bullmq closes its queues at shutdown without a bound, and a QUIT waits forever for a Redis
 * that is down (ioredis does not give up its offline queue when disconnected mid-reconnect).
 * QueueShutdown closes it, with every other queue of the process, within a bound.
 */
export function queueProvider(name: string): Provider {
  return {
    provide: getQueueToken(name),
    inject: [APP_CONFIG, QueueShutdown],
    useFactory: (config: AppConfig, shutdown: QueueShutdown) => openQueue(name, config, shutdown),
  };
}

/** The queue queueProvider provides, for providers that open several (`hashTag`: see queuePrefix). */
export function openQueue<T = unknown>(name: string, config: AppConfig, shutdown: QueueShutdown, hashTag = name): Queue<T> {
  const { connection, owned } = bullMqConnection(config.redis);
  const queue = new Queue<T>(name, { connection, prefix: queuePrefix(config.redisPrefix, hashTag), telemetry: queueTelemetry() });
  watchBullMqOutages(queue, `${name} queue`, new Logger('Queue'));
  shutdown.closeQueueOnShutdown(queue, undefined, owned);
  return queue;
}
