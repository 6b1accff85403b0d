import { Module } from '@nestjs/common';
import { StorageModule } from '../../platform/storage/storage.module';
import { AuthModule } from '../auth/auth.module';
import { SandboxResetService } from './sandbox-reset.service';

/** Test mode's own work: clearing a sandbox (the CLI's sandbox:reset and the console's button). */
@Module({
  imports: [AuthModule, StorageModule],
  providers: [SandboxResetService],
  exports: [SandboxResetService],
})
export class SandboxModule {}
