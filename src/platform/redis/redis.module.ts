import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { closeRedisClient, createRedisClient, RedisClient } from './redis-factory';
import { RedisCircuit } from './redis-circuit';
import { watchRedisOutages } from './redis-outages';

export const REDIS = Symbol('REDIS');

/** The shared command connection: commands wait for a reconnect; an outage is one log line (and one when it ends). */
export function createRedis(config: Pick<AppConfig, 'redis'>): RedisClient {
  const redis = createRedisClient(config.redis, { maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: false });
  watchRedisOutages(redis, 'shared', new Logger('Redis'));
  return redis;
}

/** One shared command connection per process (health checks, the pacer), and the process's RedisCircuit. Queues and the rate limiter open their own. */
@Global()
@Module({
  providers: [{ provide: REDIS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createRedis(config) }, RedisCircuit],
  exports: [REDIS, RedisCircuit],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    // While Redis is unreachable, quit() queues behind the commands waiting offline and never settles.
    await closeRedisClient(this.redis);
  }
}
