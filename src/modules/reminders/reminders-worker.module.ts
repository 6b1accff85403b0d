import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SchedulingModule } from '../../platform/scheduling/scheduling.module';
import { EventsModule } from '../events/events.module';
import { ReminderDueProcessor } from './reminder-due.processor';
import { ReminderFiringService } from './reminder-firing.service';
import { ReminderQueueModule } from './reminder-queue.module';
import { ReminderSweepSchedule } from './reminder-sweep.schedule';
import { ReminderEntity } from './reminder.entity';
import { RemindersRepository } from './reminders.repository';

/** Reminders in the worker process: the delayed due jobs and the sweep. Never imported by the API. */
@Module({
  imports: [TypeOrmModule.forFeature([ReminderEntity]), EventsModule, ReminderQueueModule, SchedulingModule],
  providers: [RemindersRepository, ReminderFiringService, ReminderDueProcessor, ReminderSweepSchedule],
})
export class RemindersWorkerModule {}
