import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './config/config';
import { CalendarFeedsWorkerModule } from './modules/calendar-feeds/calendar-feeds-worker.module';
import { EventsModule } from './modules/events/events.module';
import { LegacyWorkerModule } from './modules/legacy/legacy-worker.module';
import { RemindersWorkerModule } from './modules/reminders/reminders-worker.module';
import { WebhooksWorkerModule } from './modules/webhooks/webhooks-worker.module';
import { PlatformModule } from './platform/platform.module';

/** The worker process: BullMQ processors and scheduled jobs, no HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        PlatformModule.forRoot(config, 'worker'),
        EventsModule,
        WebhooksWorkerModule,
        RemindersWorkerModule,
        LegacyWorkerModule,
        CalendarFeedsWorkerModule,
      ],
    };
  }
}
