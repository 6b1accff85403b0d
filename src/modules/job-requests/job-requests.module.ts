import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { multipartOptions } from '../../platform/http/multipart';
import { StorageModule } from '../../platform/storage/storage.module';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { CommentsController } from './chat/comments.controller';
import { CommentsRepository } from './chat/comments.repository';
import { CommentsService } from './chat/comments.service';
import { JobRequestChangesService } from './host/job-request-changes.service';
import { JobRequestsController } from './host/job-requests.controller';
import { JobRequestsService } from './host/job-requests.service';
import { JobRequestCommentEntity } from './job-request-comment.entity';
import { JobRequestStore } from './job-request-store.service';
import { JobRequestEntity } from './job-request.entity';
import { JobRequestsRepository } from './job-requests.repository';
import { JobLifecycleService } from './provider/job-lifecycle.service';

/**
 * Job requests: create and reads and the host's changes (host/), the chat (chat/), the provider
 * side of the lifecycle (provider/, driven by the test helpers), and the job engine they share.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([JobRequestEntity, JobRequestCommentEntity]),
    // multer for the comment route's multipart bodies (FileInterceptor reads these options).
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => multipartOptions(config) }),
    EventsModule,
    PropertiesModule,
    ChecklistsModule,
    BookingsModule,
    StorageModule,
  ],
  controllers: [JobRequestsController, CommentsController],
  providers: [
    JobRequestsRepository,
    JobRequestStore,
    JobRequestsService,
    JobRequestChangesService,
    CommentsRepository,
    CommentsService,
    JobLifecycleService,
  ],
  // For the test helpers (provider/test-helpers.module.ts), mounted only when TEST_HELPERS_ENABLED=true; the host's
  // services for the legacy batch records (src/modules/legacy).
  exports: [JobLifecycleService, CommentsService, JobRequestsService, JobRequestChangesService],
})
export class JobRequestsModule {}
