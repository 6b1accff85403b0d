import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { ChecklistEntity } from './checklist.entity';
import { ChecklistsRepository } from './checklists.repository';
import { ChecklistsService } from './checklists.service';

@Module({
  imports: [TypeOrmModule.forFeature([ChecklistEntity]), EventsModule, PropertiesModule],
  providers: [ChecklistsService, ChecklistsRepository],
  // ChecklistsService.snapshotForJob is what job requests and reminders use.
  exports: [ChecklistsService],
})
export class ChecklistsModule {}
