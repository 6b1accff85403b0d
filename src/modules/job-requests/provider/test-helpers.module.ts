import { Module } from '@nestjs/common';
import { JobRequestsModule } from '../job-requests.module';
import { JobRequestTestHelpersController } from './test-helpers.controller';

/** Always mounted: @TestModeOnly (the key guard) decides who they answer (test keys everywhere, live keys where TEST_HELPERS_ENABLED=true). */
@Module({
  imports: [JobRequestsModule],
  controllers: [JobRequestTestHelpersController],
})
export class JobRequestTestHelpersModule {}
