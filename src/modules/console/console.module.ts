import { Module } from '@nestjs/common';
import { SecretsModule } from '../../platform/secrets/secrets.module';
import { AuthModule } from '../auth/auth.module';
import { ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleFormsRepository } from './console-forms.repository';
import { ConsoleFormsService } from './console-forms.service';
import { ConsoleKeysService } from './console-keys.service';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';

/**
 * The account console's core: sign-in links, sessions, keys and their audit list, forms' one-post tokens
 * and shown-once notes (docs/console.md). The pages are ConsoleHttpModule.
 */
@Module({
  // SecretsModule is global in the API, named here for the CLI's context (console:link), which loads this module alone.
  imports: [AuthModule, SecretsModule],
  providers: [
    ConsoleSessionsRepository,
    ConsoleSessionsService,
    ConsoleAuditRepository,
    ConsoleKeysService,
    ConsoleFormsRepository,
    ConsoleFormsService,
  ],
  exports: [ConsoleSessionsService, ConsoleKeysService, ConsoleFormsService],
})
export class ConsoleModule {}
