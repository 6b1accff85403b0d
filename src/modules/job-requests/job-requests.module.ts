import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../platform/storage/storage.module';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { CommentsRepository } from './chat/comments.repository';
import { CommentsService } from './chat/comments.service';
import { JobRequestChangesService } from './host/job-request-changes.service';
import { JobRequestsService } from './host/job-requests.service';
import { JobRequestCommentEntity } from './job-request-comment.entity';
import { JobRequestStore } from './job-request-store.service';
import { JobRequestEntity } from './job-request.entity';
import { JobRequestsRepository } from './job-requests.repository';
import { JobLifecycleService } from './provider/job-lifecycle.service';

/**
 * Job requests: create and reads and the host's changes (host/), the chat (chat/), the provider
 * side of the lifecycle (provider/, driven by the test helpers), and the job engine they share.
 * The routes are JobRequestsHttpModule's.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([JobRequestEntity, JobRequestCommentEntity]),
    EventsModule,
    PropertiesModule,
    ChecklistsModule,
    BookingsModule,
    StorageModule,
  ],
  providers: [
    JobRequestsRepository,
    JobRequestStore,
    JobRequestsService,
    JobRequestChangesService,
    CommentsRepository,
    CommentsService,
    JobLifecycleService,
  ],
  // For the test helpers (provider/test-helpers.module.ts), which answer test keys everywhere; the host's
  // services for the legacy batch records (src/modules/legacy).
  exports: [JobLifecycleService, CommentsService, JobRequestsService, JobRequestChangesService],
})
export class JobRequestsModule {}
