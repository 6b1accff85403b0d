import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { CliServices } from './cli-services';
import { loadConfigOrExit } from './config/config';
import { PLANS, Plan } from './modules/auth/plans';

/**
 * Admin CLI: `npm run --silent cli -- <command> [options]`. One JSON line on stdout
 * on success; a message on stderr and exit code 1 on failure.
 */
const USAGE = `Usage: npm run --silent cli -- <command> [options]
  accounts:create --name NAME [--plan basic|pro|business] [--inactive]
  accounts:deactivate --account ACCOUNTID
  accounts:activate --account ACCOUNTID
  accounts:legacy-usage --account ACCOUNTID
  keys:issue --account ACCOUNTID [--legacy | --test]   (--test: a test key, popk_test_…, acting on the account's sandbox)
  keys:revoke --key APIKEYID
  console:link --account ACCOUNTID [--minutes N]   (a single-use sign-in link to the account console, default 15 minutes)
  sandbox:reset --account ACCOUNTID   (deletes the account's test data; live data and test keys stay)`;

class UsageError extends Error {}

type Options = {
  name?: string;
  plan?: string;
  inactive?: boolean;
  account?: string;
  legacy?: boolean;
  test?: boolean;
  key?: string;
  minutes?: string;
};

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

type Run = (services: CliServices) => Promise<unknown>;

/**
 * The command with its options checked: what it runs once the services are up. A usage error is
 * thrown here, before the Nest context and the database are opened (most of a command's time).
 */
function prepare(command: string, options: Options): Run {
  switch (command) {
    case 'accounts:create': {
      const plan = (options.plan ?? 'pro') as Plan;
      if (!PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      const name = required(options, 'name');
      if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
      return ({ accounts }) => accounts.createAccount({ name, plan, active: !options.inactive });
    }
    case 'accounts:deactivate': {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.setSubscriptionStatus(account, 'inactive');
    }
    case 'accounts:activate': {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.setSubscriptionStatus(account, 'active');
    }
    case 'accounts:legacy-usage': {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.legacyUsage(account);
    }
    case 'keys:issue': {
      const account = required(options, 'account');
      if (options.legacy && options.test) throw new UsageError('--legacy and --test cannot be combined: test keys are Platform keys');
      return ({ accounts }) => accounts.issueKey(account, options.legacy ? 'legacy' : 'platform', { test: options.test });
    }
    case 'keys:revoke': {
      const key = required(options, 'key');
      return ({ accounts }) => accounts.revokeKey(key);
    }
    case 'console:link': {
      const account = required(options, 'account');
      const minutes = minutesOption(options);
      return async ({ consoleSessions }) => {
        try {
          // The web app's code path too: it would call ConsoleSessionsService.mintLink (docs/console.md).
          return await consoleSessions.mintLink(account, minutes);
        } catch (error) {
          if (error instanceof RangeError) throw new UsageError(`--${error.message}`);
          throw error;
        }
      };
    }
    case 'sandbox:reset': {
      const account = required(options, 'account');
      return ({ sandbox }) => sandbox.reset(account);
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
        test: { type: 'boolean' },
        key: { type: 'string' },
        minutes: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...extra] = parsed.positionals;
  if (extra.length) throw new UsageError(`Unexpected argument ${extra[0]}`);

  const run = prepare(command ?? '', parsed.values);
  const config = loadConfigOrExit();
  // Loaded only now: Nest and TypeORM take most of a usage error's time otherwise.
  const { withCliServices } = await import('./cli-services');
  const result = await withCliServices(config, run);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(error instanceof UsageError ? `Error: ${error.message}\n${USAGE}\n` : `Error: ${error.message}\n`);
  process.exitCode = 1;
});
