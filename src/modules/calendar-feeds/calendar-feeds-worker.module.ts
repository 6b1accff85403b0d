import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { SchedulingModule } from '../../platform/scheduling/scheduling.module';
import { BookingsModule } from '../bookings/bookings.module';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { CalendarFeedEntity } from './calendar-feed.entity';
import { CalendarFeedEntriesRepository } from './calendar-feed-entries.repository';
import { CalendarFeedsRepository } from './calendar-feeds.repository';
import { CalendarSyncQueueModule } from './calendar-sync-queue.module';
import { CalendarSyncProcessor } from './calendar-sync.processor';
import { CalendarSyncSchedule } from './calendar-sync.schedule';
import { CalendarSyncService } from './calendar-sync.service';

/** Calendar feeds in the worker process: the sync jobs and the scan for due feeds. Never imported by the API. */
@Module({
  imports: [
    TypeOrmModule.forFeature([CalendarFeedEntity]),
    BookingsModule,
    PropertiesModule,
    EventsModule,
    NetModule,
    SchedulingModule,
    CalendarSyncQueueModule,
  ],
  providers: [CalendarFeedsRepository, CalendarFeedEntriesRepository, CalendarSyncService, CalendarSyncProcessor, CalendarSyncSchedule],
})
export class CalendarFeedsWorkerModule {}
