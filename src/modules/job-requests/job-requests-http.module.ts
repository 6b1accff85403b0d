import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { multipartOptions } from '../../platform/http/multipart';
import { CommentsController } from './chat/comments.controller';
import { JobRequestsController } from './host/job-requests.controller';
import { JobRequestsModule } from './job-requests.module';

/** The job request and comment routes over JobRequestsModule's services. Only the app module imports it. */
@Module({
  imports: [
    JobRequestsModule,
    // multer for the comment route's multipart bodies (FileInterceptor reads these options).
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => multipartOptions(config) }),
  ],
  controllers: [JobRequestsController, CommentsController],
})
export class JobRequestsHttpModule {}
