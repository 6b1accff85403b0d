import { Module } from '@nestjs/common';
import { queueProvider } from '../../platform/queue/queue.provider';
import { REMINDER_DUE_QUEUE, ReminderQueue } from './reminder-queue.service';

const queue = queueProvider(REMINDER_DUE_QUEUE);

/** The reminder-due queue's producer, for the API (RemindersModule) and the worker (RemindersWorkerModule); ReminderQueue closes it. */
@Module({
  providers: [queue, ReminderQueue],
  exports: [ReminderQueue, queue],
})
export class ReminderQueueModule {}
