import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { REDIS_DISCONNECT_TIMEOUT_MS, redisReconnectDelayMs } from './redis-connection';
import { watchRedisOutages } from './redis-outages';

export const REDIS = Symbol('REDIS');

/** The shared command connection: commands wait for a reconnect; an outage is one log line (and one when it ends). */
export function createRedis(config: Pick<AppConfig, 'redisUrl'>): Redis {
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    lazyConnect: false,
    retryStrategy: redisReconnectDelayMs,
    disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
  });
  watchRedisOutages(redis, 'shared', new Logger('Redis'));
  return redis;
}

/** One shared command connection per process (health checks). Queues and the rate limiter open their own. */
@Global()
@Module({
  providers: [{ provide: REDIS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createRedis(config) }],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    // While Redis is unreachable, quit() queues behind the commands waiting offline and never settles.
    if (this.redis.status !== 'ready') return this.redis.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
