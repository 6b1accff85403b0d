import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './config/config';
import { dataSourceOptions } from './database/data-source';
import { WORKER_MODULES } from './modules/modules';
import { PlatformModule } from './platform/platform.module';

/** The worker process: BullMQ processors and scheduled jobs, no HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [PlatformModule.forRoot(config, 'worker', dataSourceOptions(config)), ...WORKER_MODULES],
    };
  }
}
