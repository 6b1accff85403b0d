import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { ReminderAutomation } from './reminder-automation.service';
import { ReminderQueueModule } from './reminder-queue.module';
import { ReminderEntity } from './reminder.entity';
import { RemindersRepository } from './reminders.repository';
import { RemindersService } from './reminders.service';

@Module({
  imports: [TypeOrmModule.forFeature([ReminderEntity]), EventsModule, PropertiesModule, ChecklistsModule, ReminderQueueModule],
  providers: [RemindersService, RemindersRepository, ReminderAutomation],
  // ReminderAutomation is what the bookings' scheduling automation calls; RemindersService what legacy batch records run.
  exports: [ReminderAutomation, RemindersService],
})
export class RemindersModule {}
