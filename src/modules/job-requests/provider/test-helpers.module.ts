import { Module } from '@nestjs/common';
import { JobRequestsModule } from '../job-requests.module';
import { JobRequestTestHelpersController } from './test-helpers.controller';
import { TestHelpersGuard } from './test-helpers.guard';

/** Always mounted: TestHelpersGuard decides who they answer (test keys everywhere, live keys where TEST_HELPERS_ENABLED=true). */
@Module({
  imports: [JobRequestsModule],
  controllers: [JobRequestTestHelpersController],
  providers: [TestHelpersGuard],
})
export class JobRequestTestHelpersModule {}
