import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { AccountsService } from './modules/auth/accounts.service';
import { AuthModule } from './modules/auth/auth.module';
import { ConsoleModule } from './modules/console/console.module';
import { ConsoleSessionsService } from './modules/console/console-sessions.service';
import { SandboxModule } from './modules/sandbox/sandbox.module';
import { SandboxResetService } from './modules/sandbox/sandbox-reset.service';
import { DECLARED } from './modules/modules';
import { DeclarationsModule } from './platform/modules/declarations.module';

/** What the admin CLI's commands call (src/cli.ts), on a Nest context of their modules and the database. */
export interface CliServices {
  accounts: AccountsService;
  consoleSessions: ConsoleSessionsService;
  sandbox: SandboxResetService;
}

/** Runs `use` on the services, then closes the context (and its database connections). */
export async function withCliServices<T>(config: AppConfig, use: (services: CliServices) => Promise<T>): Promise<T> {
  // retryAttempts 0: a one-shot command should fail at once, not retry the connection for half a minute.
  const database = TypeOrmModule.forRoot({ ...dataSourceOptions(config), autoLoadEntities: true, retryAttempts: 0 });
  // The modules' declarations: sandbox:reset clears the tenant tables they declare.
  @Module({
    imports: [ConfigModule.forRoot(config), database, DeclarationsModule.forRoot(DECLARED), AuthModule, ConsoleModule, SandboxModule],
  })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
  try {
    return await use({
      accounts: app.get(AccountsService),
      consoleSessions: app.get(ConsoleSessionsService),
      sandbox: app.get(SandboxResetService),
    });
  } finally {
    await app.close();
  }
}
