import { Module } from '@nestjs/common';
import { queueProvider } from '../../platform/queue/queue.provider';
import { CALENDAR_SYNC_QUEUE, CalendarSyncQueue } from './calendar-sync-queue.service';

const queue = queueProvider(CALENDAR_SYNC_QUEUE);

/** The calendar-sync queue's producer, for the API and the worker; CalendarSyncQueue closes it. */
@Module({
  providers: [queue, CalendarSyncQueue],
  exports: [CalendarSyncQueue, queue],
})
export class CalendarSyncQueueModule {}
