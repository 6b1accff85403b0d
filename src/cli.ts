import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { CliServices } from './cli-services';
import { loadConfigOrExit } from './config/config';
import { PLANS, Plan } from './modules/auth/plans';

/**
 * Admin CLI: `npm run --silent cli -- <command> [options]`. One JSON line on stdout
 * on success; a message on stderr and exit code 1 on failure. `--help` (or `help [command]`)
 * prints the usage on stdout and exits 0.
 */
const INVOCATION = 'npm run --silent cli --';

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
  help?: boolean;
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

interface Command {
  /** Its options, as its usage line shows them. */
  options: string;
  /** What it does and prints. */
  about: string;
  /**
   * The command with its options checked: what it runs once the services are up. A usage error is
   * thrown here, before the Nest context and the database are opened (most of a command's time).
   */
  prepare(options: Options): Run;
}

const COMMANDS: Record<string, Command> = {
  'accounts:create': {
    options: '--name NAME [--plan basic|pro|business] [--inactive]',
    about:
      'Creates an account (plan pro unless --plan) and its first Platform key; prints {"accountId","apiKeyId","apiKey"}: the key is shown once.',
    prepare(options) {
      const plan = (options.plan ?? 'pro') as Plan;
      if (!PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      const name = required(options, 'name');
      if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
      return ({ accounts }) => accounts.createAccount({ name, plan, active: !options.inactive });
    },
  },
  'accounts:deactivate': {
    options: '--account ACCOUNTID',
    about: 'Pauses the account\'s API access (its keys get 403 subscription_inactive); prints {"accountId","subscriptionStatus"}.',
    prepare(options) {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.setSubscriptionStatus(account, 'inactive');
    },
  },
  'accounts:activate': {
    options: '--account ACCOUNTID',
    about: 'Resumes the account\'s API access; prints {"accountId","subscriptionStatus"}.',
    prepare(options) {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.setSubscriptionStatus(account, 'active');
    },
  },
  'accounts:legacy-usage': {
    options: '--account ACCOUNTID',
    about:
      "Whether the account used a legacy key in the last 30 days, and its live legacy keys (whom to remind before the legacy API's sunset).",
    prepare(options) {
      const account = required(options, 'account');
      return ({ accounts }) => accounts.legacyUsage(account);
    },
  },
  'keys:issue': {
    options: '--account ACCOUNTID [--legacy | --test]',
    about:
      'Issues another key; prints {"apiKeyId","apiKey"}: the key is shown once. --legacy: a legacy key (docs/legacy.md); --test: a test key, popk_test_…, acting on the account\'s sandbox (docs/test-mode.md).',
    prepare(options) {
      const account = required(options, 'account');
      if (options.legacy && options.test) throw new UsageError('--legacy and --test cannot be combined: test keys are Platform keys');
      return ({ accounts }) => accounts.issueKey(account, options.legacy ? 'legacy' : 'platform', { test: options.test });
    },
  },
  'keys:revoke': {
    options: '--key APIKEYID',
    about: 'Revokes a key (by its id, key_…), refused from its next request on; prints {"apiKeyId","revokedAt"}.',
    prepare(options) {
      const key = required(options, 'key');
      return ({ accounts }) => accounts.revokeKey(key);
    },
  },
  'console:link': {
    options: '--account ACCOUNTID [--minutes N]',
    about:
      'A single-use sign-in link to the account console, valid N minutes (default 15, at most 60); prints {"url","expiresAt"} (docs/console.md).',
    prepare(options) {
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
    },
  },
  'sandbox:reset': {
    options: '--account ACCOUNTID',
    about:
      'Deletes the account\'s test data (its sandbox); live data and test keys stay. Prints {"accountId","sandboxAccountId","deleted"}.',
    prepare(options) {
      const account = required(options, 'account');
      return ({ sandbox }) => sandbox.reset(account);
    },
  },
};

const USAGE = [
  `Usage: ${INVOCATION} <command> [options]`,
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${name} ${command.options}`),
  `  help [COMMAND]   (or COMMAND --help: what COMMAND does)`,
  'Each command prints one JSON line on success; on failure a message on stderr and exit code 1.',
].join('\n');

function commandUsage(name: string): string {
  const command = COMMANDS[name];
  return `Usage: ${INVOCATION} ${name} ${command.options}\n${command.about}`;
}

function commandNamed(name: string | undefined): Command {
  if (!name) throw new UsageError('A command is required');
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`Unknown command ${name}`);
  return COMMANDS[name];
}

/** The help asked for (`--help`, `-h`, `help`, `help COMMAND`, `COMMAND --help`), or undefined. */
function helpAskedFor(positionals: string[], options: Options): string | undefined {
  const [first, second] = positionals;
  if (first === 'help' || (options.help && first === undefined)) {
    if (positionals.length > 2) throw new UsageError(`Unexpected argument ${positionals[2]}`);
    const name = first === 'help' ? second : undefined;
    if (name === undefined) return USAGE;
    commandNamed(name);
    return commandUsage(name);
  }
  if (!options.help) return undefined;
  commandNamed(first);
  return commandUsage(first);
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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const help = helpAskedFor(parsed.positionals, parsed.values);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return;
  }
  const [command, ...extra] = parsed.positionals;
  if (extra.length) throw new UsageError(`Unexpected argument ${extra[0]}`);

  const run = commandNamed(command).prepare(parsed.values);
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
