import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from './config/config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { PLANS, Plan } from './modules/auth/account.entity';
import { AccountsService } from './modules/auth/accounts.service';
import { AuthModule } from './modules/auth/auth.module';
import { ConsoleModule } from './modules/console/console.module';
import { ConsoleSessionsService } from './modules/console/console-sessions.service';

/**
 * Admin CLI: `npm run --silent cli -- <command> [options]`. One JSON line on stdout
 * on success; a message on stderr and exit code 1 on failure.
 */
const USAGE = `Usage: npm run --silent cli -- <command> [options]
  accounts:create --name NAME [--plan basic|pro|business] [--inactive]
  accounts:deactivate --account ACCOUNTID
  accounts:activate --account ACCOUNTID
  accounts:legacy-usage --account ACCOUNTID
  keys:issue --account ACCOUNTID [--legacy]
  keys:revoke --key APIKEYID
  console:link --account ACCOUNTID [--minutes N]   (a single-use sign-in link to the account console, default 15 minutes)`;

class UsageError extends Error {}

type Options = {
  name?: string;
  plan?: string;
  inactive?: boolean;
  account?: string;
  legacy?: boolean;
  key?: string;
  minutes?: string;
};

interface Services {
  accounts: AccountsService;
  consoleSessions: ConsoleSessionsService;
}

function minutesOption(options: Options): number | undefined {
  if (options.minutes === undefined) return undefined;
  if (!/^\d+$/.test(options.minutes.trim())) throw new UsageError('--minutes must be a whole number');
  return Number(options.minutes);
}

function required(options: Options, name: keyof Options): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

async function run(command: string, options: Options, { accounts, consoleSessions }: Services): Promise<unknown> {
  switch (command) {
    case 'accounts:create': {
      const plan = (options.plan ?? 'pro') as Plan;
      if (!PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      const name = required(options, 'name');
      if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
      return accounts.createAccount({ name, plan, active: !options.inactive });
    }
    case 'accounts:deactivate':
      return accounts.setSubscriptionStatus(required(options, 'account'), 'inactive');
    case 'accounts:activate':
      return accounts.setSubscriptionStatus(required(options, 'account'), 'active');
    case 'accounts:legacy-usage':
      return accounts.legacyUsage(required(options, 'account'));
    case 'keys:issue':
      return accounts.issueKey(required(options, 'account'), options.legacy ? 'legacy' : 'platform');
    case 'keys:revoke':
      return accounts.revokeKey(required(options, 'key'));
    case 'console:link': {
      const account = required(options, 'account');
      const minutes = minutesOption(options);
      try {
        // The web app's code path too: it would call ConsoleSessionsService.mintLink (docs/console.md).
        return await consoleSessions.mintLink(account, minutes);
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(`--${error.message}`);
        throw error;
      }
    }
    default:
      throw new UsageError(command ? `Unknown command ${command}` : 'A command is required');
  }
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        inactive: { type: 'boolean' },
        account: { type: 'string' },
        legacy: { type: 'boolean' },
        key: { type: 'string' },
        minutes: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...extra] = parsed.positionals;
  if (extra.length) throw new UsageError(`Unexpected argument ${extra[0]}`);

  const config = loadConfigOrExit();
  // retryAttempts 0: a one-shot command should fail at once, not retry the connection for half a minute.
  const database = TypeOrmModule.forRoot({ ...dataSourceOptions(config), autoLoadEntities: true, retryAttempts: 0 });
  @Module({ imports: [ConfigModule.forRoot(config), database, AuthModule, ConsoleModule] })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
  try {
    const result = await run(command ?? '', parsed.values, {
      accounts: app.get(AccountsService),
      consoleSessions: app.get(ConsoleSessionsService),
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: Error) => {
  process.stderr.write(error instanceof UsageError ? `Error: ${error.message}\n${USAGE}\n` : `Error: ${error.message}\n`);
  process.exitCode = 1;
});
