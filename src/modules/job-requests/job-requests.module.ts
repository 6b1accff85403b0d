import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { JobRequestsController } from './host/job-requests.controller';
import { JobRequestsService } from './host/job-requests.service';
import { JobRequestStore } from './job-request-store.service';
import { JobRequestEntity } from './job-request.entity';
import { JobRequestsRepository } from './job-requests.repository';

/** Job requests: create and reads, the host's changes, and the job engine they share. */
@Module({
  imports: [TypeOrmModule.forFeature([JobRequestEntity]), EventsModule, PropertiesModule, ChecklistsModule, BookingsModule],
  controllers: [JobRequestsController],
  providers: [JobRequestsRepository, JobRequestStore, JobRequestsService],
})
export class JobRequestsModule {}
