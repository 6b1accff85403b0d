import { Module } from '@nestjs/common';
import { CalendarFeedsModule } from './calendar-feeds.module';
import { CalendarFeedsController } from './calendar-feeds.controller';

/** The HTTP side of calendar feeds: its controllers over the core module's services. Only the app module imports it; workers import CalendarFeedsModule (the sync runs in CalendarFeedsWorkerModule). */
@Module({ imports: [CalendarFeedsModule], controllers: [CalendarFeedsController] })
export class CalendarFeedsHttpModule {}
