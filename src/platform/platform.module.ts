import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { PlatformDatabaseModule } from './database/platform-database.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { loggerParams } from './logging';
import { MetricsModule } from './metrics/metrics.module';
import { PaginationModule } from './pagination/pagination.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';
import { SecretsModule } from './secrets/secrets.module';

/** What every process (API, worker, CLI) stands on: config, logs, PostgreSQL, Redis, queues, transactions. */
@Module({})
export class PlatformModule {
  /** `dataSource`: how to reach PostgreSQL (src/database/data-source.ts, which also knows the migrations). */
  static forRoot(config: AppConfig, processName: 'api' | 'worker' | 'cli', dataSource: DataSourceOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config, processName)),
        TypeOrmModule.forRoot({ ...dataSource, autoLoadEntities: true }),
        RedisModule,
        QueueModule,
        PaginationModule,
        IdempotencyModule,
        PlatformDatabaseModule,
        MetricsModule.forRoot(processName),
        SecretsModule,
      ],
    };
  }
}
