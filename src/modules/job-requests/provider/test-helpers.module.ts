import { Module } from '@nestjs/common';
import { JobRequestsModule } from '../job-requests.module';
import { JobRequestTestHelpersController } from './test-helpers.controller';

/** Mounted by AppModule only when TEST_HELPERS_ENABLED=true: without it every /v1/testHelpers route is a 404. */
@Module({
  imports: [JobRequestsModule],
  controllers: [JobRequestTestHelpersController],
})
export class JobRequestTestHelpersModule {}
