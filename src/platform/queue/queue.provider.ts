import { getQueueToken } from '@nestjs/bullmq';
import { Logger, Provider } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { redisConnectionOptions } from '../redis/redis-connection';
import { watchBullMqOutages } from '../redis/redis-outages';
import { QueueShutdown } from './queue-shutdown';
import { queueTelemetry } from '../tracing/tracing';

/**
 * A BullMQ queue to add jobs to, under @nestjs/bullmq's token (so @InjectQueue finds it), on the
 * process's Redis and prefix, its outages logged as one line each. Not BullModule.registerQueue:
 * @nestjs/bullmq closes its queues at shutdown without a bound, and a QUIT waits forever for a Redis
 * that is down (ioredis does not give up its offline queue when disconnected mid-reconnect).
 * QueueShutdown closes it, with every other queue of the process, within a bound.
 */
export function queueProvider(name: string): Provider {
  return {
    provide: getQueueToken(name),
    inject: [APP_CONFIG, QueueShutdown],
    useFactory: (config: AppConfig, shutdown: QueueShutdown) => {
      const queue = new Queue(name, {
        connection: redisConnectionOptions(config.redisUrl),
        prefix: config.redisPrefix,
        telemetry: queueTelemetry(),
      });
      watchBullMqOutages(queue, `${name} queue`, new Logger('Queue'));
      shutdown.closeQueueOnShutdown(queue);
      return queue;
    },
  };
}
