import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { dataSourceOptions } from '../database/data-source';
import { PlatformDatabaseModule } from './database/platform-database.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { loggerParams } from './logging';
import { PaginationModule } from './pagination/pagination.module';
import { RedisModule } from './redis/redis.module';

/** BullMQ takes connection options (it opens and closes its own connections). */
export function redisConnectionOptions(redisUrl: string) {
  const url = new URL(redisUrl);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/** What every process (API, worker, CLI) stands on: config, logs, PostgreSQL, Redis, queues, transactions. */
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, processName: 'api' | 'worker' | 'cli'): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config, processName)),
        TypeOrmModule.forRoot({ ...dataSourceOptions(config), autoLoadEntities: true }),
        RedisModule,
        BullModule.forRoot({ connection: redisConnectionOptions(config.redisUrl), prefix: config.redisPrefix }),
        PaginationModule,
        IdempotencyModule,
        PlatformDatabaseModule,
      ],
    };
  }
}
