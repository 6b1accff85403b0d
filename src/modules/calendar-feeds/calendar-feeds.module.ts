import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetModule } from '../../platform/net/net.module';
import { PropertiesModule } from '../properties/properties.module';
import { CalendarFeedEntity } from './calendar-feed.entity';
import { CalendarFeedsRepository } from './calendar-feeds.repository';
import { CalendarFeedsService } from './calendar-feeds.service';
import { CalendarSyncQueueModule } from './calendar-sync-queue.module';

/** Calendar feeds in the API process: the routes; syncs are the worker's (CalendarFeedsWorkerModule). */
@Module({
  imports: [TypeOrmModule.forFeature([CalendarFeedEntity]), PropertiesModule, NetModule, CalendarSyncQueueModule],
  providers: [CalendarFeedsService, CalendarFeedsRepository],
  exports: [CalendarFeedsService],
})
export class CalendarFeedsModule {}
