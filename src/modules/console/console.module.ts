import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleKeysService } from './console-keys.service';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';

/** The account console's core: sign-in links, sessions, keys and their audit list (docs/console.md). The pages are ConsoleHttpModule. */
@Module({
  imports: [AuthModule],
  providers: [ConsoleSessionsRepository, ConsoleSessionsService, ConsoleAuditRepository, ConsoleKeysService],
  exports: [ConsoleSessionsService, ConsoleKeysService],
})
export class ConsoleModule {}
