import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { REMINDER_DUE_QUEUE, ReminderQueue } from './reminder-queue.service';

/** The reminder-due queue's producer, for the API (RemindersModule) and the worker (RemindersWorkerModule). */
@Module({
  imports: [BullModule.registerQueue({ name: REMINDER_DUE_QUEUE })],
  providers: [ReminderQueue],
  exports: [ReminderQueue, BullModule],
})
export class ReminderQueueModule {}
