import { Module } from '@nestjs/common';
import { SchedulingModule } from '../../platform/scheduling/scheduling.module';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { JobRequestsModule } from '../job-requests/job-requests.module';
import { PropertiesModule } from '../properties/properties.module';
import { RemindersModule } from '../reminders/reminders.module';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LegacyBatchProcessor } from './legacy-batch.processor';
import { LegacyBatchesRepository } from './legacy-batches.repository';
import { LegacyRecordRunner } from './legacy-record-runner';
import { LegacySweepSchedule } from './legacy-sweep.schedule';
import { LegacyRetentionService } from './legacy-retention.service';

/**
 * The legacy batches in the worker process: the queue job, the sweep, and the records applied through
 * the Platform modules' own services. Never imported by the API.
 */
@Module({
  imports: [EventsModule, SchedulingModule, PropertiesModule, ChecklistsModule, BookingsModule, RemindersModule, JobRequestsModule],
  providers: [
    LegacyBatchesRepository,
    LegacyRecordRunner,
    LegacyBatchProcessingService,
    LegacyBatchProcessor,
    LegacySweepSchedule,
    LegacyRetentionService,
  ],
})
export class LegacyWorkerModule {}
