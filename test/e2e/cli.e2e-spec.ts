import { appSuite, clientFor } from '../support/app';
import { cliJson, CliResult, runCli } from '../support/cli';
import { expectProblem } from '../support/problem';

const ACCOUNT_ID = /^acct_[0-9A-HJKMNP-TV-Z]{26}$/;
const API_KEY_ID = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;
const API_KEY = /^popk_[A-Za-z0-9_-]{43}$/;

/** Exactly one JSON line on stdout, nothing on stderr, exit 0. */
function expectOneJsonLine(result: CliResult): Record<string, unknown> {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
}

/** A failure: non-zero exit, nothing on stdout, a message on stderr that mentions `mention`. */
function expectFailure(result: CliResult, mention: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^Error: /);
  expect(result.stderr).toMatch(mention);
}

describe('admin CLI (dist/cli.js)', () => {
  const s = appSuite();

  describe('accounts:create', () => {
    it('prints accountId, apiKeyId and apiKey; the key authenticates GET /v1/events', async () => {
      const out = expectOneJsonLine(await runCli(['accounts:create', '--name', 'Seaside Rentals Ltd']));
      expect(Object.keys(out)).toEqual(['accountId', 'apiKeyId', 'apiKey']);
      expect(out.accountId).toMatch(ACCOUNT_ID);
      expect(out.apiKeyId).toMatch(API_KEY_ID);
      expect(out.apiKey).toMatch(API_KEY);

      const [account] = await s.db.query('SELECT name, plan, subscription_status FROM accounts WHERE id = $1', [out.accountId]);
      expect(account).toEqual({ name: 'Seaside Rentals Ltd', plan: 'pro', subscription_status: 'active' });
      const [key] = await s.db.query('SELECT account_id, kind, revoked_at, key_hash FROM api_keys WHERE id = $1', [out.apiKeyId]);
      expect(key).toMatchObject({ account_id: out.accountId, kind: 'platform', revoked_at: null });
      // Only a hash is stored.
      expect(key.key_hash.toString('utf8')).not.toContain(out.apiKey);

      const res = await clientFor(s.t, { apiKey: out.apiKey as string })
        .get('/v1/events')
        .expect(200);
      expect(res.body).toEqual({ data: [], nextCursor: null, hasMore: false });
    });

    it('takes --plan business', async () => {
      const out = await cliJson<{ accountId: string; apiKey: string }>(['accounts:create', '--name', 'Big Co', '--plan', 'business']);
      const [account] = await s.db.query('SELECT plan FROM accounts WHERE id = $1', [out.accountId]);
      expect(account.plan).toBe('business');
      await clientFor(s.t, out).get('/v1/events').expect(200);
    });

    it('creates a basic account whose key gets 403 subscription_inactive', async () => {
      const out = await cliJson<{ accountId: string; apiKey: string }>(['accounts:create', '--name', 'Small Co', '--plan', 'basic']);
      expectProblem(await clientFor(s.t, out).get('/v1/events').expect(403), 403, 'subscription_inactive');
    });

    it('creates an --inactive account whose key works after accounts:activate', async () => {
      const out = await cliJson<{ accountId: string; apiKey: string }>(['accounts:create', '--name', 'Sleepy Co', '--inactive']);
      const [account] = await s.db.query('SELECT subscription_status FROM accounts WHERE id = $1', [out.accountId]);
      expect(account.subscription_status).toBe('inactive');
      expectProblem(await clientFor(s.t, out).get('/v1/events').expect(403), 403, 'subscription_inactive');

      const activated = expectOneJsonLine(await runCli(['accounts:activate', '--account', out.accountId]));
      expect(activated).toEqual({ accountId: out.accountId, subscriptionStatus: 'active' });
      await clientFor(s.t, out).get('/v1/events').expect(200);
    });

    it('keeps a name with spaces and non-ASCII characters as given', async () => {
      const out = await cliJson<{ accountId: string }>(['accounts:create', '--name', 'Ferienwohnungen Müller & Söhne']);
      const [account] = await s.db.query('SELECT name FROM accounts WHERE id = $1', [out.accountId]);
      expect(account.name).toBe('Ferienwohnungen Müller & Söhne');
    });

    it('fails without --name, with an empty or blank one, or one over 200 characters', async () => {
      expectFailure(await runCli(['accounts:create']), /--name/);
      expectFailure(await runCli(['accounts:create', '--name', '']), /--name/);
      expectFailure(await runCli(['accounts:create', '--name', '   ']), /--name/);
      expectFailure(await runCli(['accounts:create', '--name', 'x'.repeat(201)]), /--name/);
      expectFailure(await runCli(['accounts:create', '--name']), /--name/);
    });

    it.each(['gold', 'PRO', ''])('fails with --plan %p', async (plan) => {
      expectFailure(await runCli(['accounts:create', '--name', 'Acme', '--plan', plan]), /--plan/);
    });

    it('creates nothing when it fails', async () => {
      const [{ count: before }] = await s.db.query('SELECT count(*)::int AS count FROM accounts');
      await runCli(['accounts:create', '--name', 'Nope Co', '--plan', 'gold']);
      const [{ count: after }] = await s.db.query(`SELECT count(*)::int AS count FROM accounts WHERE name = 'Nope Co'`);
      expect(after).toBe(0);
      expect(before).toBeGreaterThan(0);
    });
  });

  describe('accounts:deactivate and accounts:activate', () => {
    it('switch the subscription and print the new status', async () => {
      const created = await cliJson<{ accountId: string; apiKey: string }>(['accounts:create', '--name', 'Toggle Co']);
      const off = expectOneJsonLine(await runCli(['accounts:deactivate', '--account', created.accountId]));
      expect(off).toEqual({ accountId: created.accountId, subscriptionStatus: 'inactive' });
      expectProblem(await clientFor(s.t, created).get('/v1/events').expect(403), 403, 'subscription_inactive');

      // Deactivating twice is harmless.
      expect(expectOneJsonLine(await runCli(['accounts:deactivate', '--account', created.accountId]))).toEqual(off);

      const on = expectOneJsonLine(await runCli(['accounts:activate', '--account', created.accountId]));
      expect(on).toEqual({ accountId: created.accountId, subscriptionStatus: 'active' });
      await clientFor(s.t, created).get('/v1/events').expect(200);
    });

    it.each(['accounts:deactivate', 'accounts:activate'])('%s fails for an unknown or missing account', async (command) => {
      expectFailure(await runCli([command, '--account', 'acct_01AAAAAAAAAAAAAAAAAAAAAAAA']), /acct_01AAAAAAAAAAAAAAAAAAAAAAAA/);
      expectFailure(await runCli([command, '--account', "x' OR '1'='1"]), /not found/i);
      expectFailure(await runCli([command]), /--account/);
    });
  });

  describe('keys:issue and keys:revoke', () => {
    it('issues another working key for the account, platform or legacy', async () => {
      const created = await cliJson<{ accountId: string; apiKeyId: string; apiKey: string }>(['accounts:create', '--name', 'Keys Co']);
      const issued = expectOneJsonLine(await runCli(['keys:issue', '--account', created.accountId]));
      expect(Object.keys(issued)).toEqual(['apiKeyId', 'apiKey']);
      expect(issued.apiKey).toMatch(API_KEY);
      expect(issued.apiKey).not.toBe(created.apiKey);
      await clientFor(s.t, { apiKey: issued.apiKey as string })
        .get('/v1/events')
        .expect(200);

      const legacy = expectOneJsonLine(await runCli(['keys:issue', '--account', created.accountId, '--legacy']));
      const [row] = await s.db.query('SELECT kind, account_id FROM api_keys WHERE id = $1', [legacy.apiKeyId]);
      expect(row).toEqual({ kind: 'legacy', account_id: created.accountId });
      await clientFor(s.t, { apiKey: legacy.apiKey as string })
        .get('/v1/events')
        .expect(200);
    });

    it('revokes a key at once; the account keeps its other keys', async () => {
      const created = await cliJson<{ accountId: string; apiKeyId: string; apiKey: string }>(['accounts:create', '--name', 'Revoke Co']);
      const other = await cliJson<{ apiKeyId: string; apiKey: string }>(['keys:issue', '--account', created.accountId]);
      const before = Date.now();
      const revoked = expectOneJsonLine(await runCli(['keys:revoke', '--key', created.apiKeyId]));
      expect(Object.keys(revoked)).toEqual(['apiKeyId', 'revokedAt']);
      expect(revoked.apiKeyId).toBe(created.apiKeyId);
      expect(new Date(revoked.revokedAt as string).toISOString()).toBe(revoked.revokedAt);
      expect(Math.abs(new Date(revoked.revokedAt as string).getTime() - before)).toBeLessThan(30_000);

      const res = await clientFor(s.t, created).get('/v1/events').expect(401);
      expect(expectProblem(res, 401, 'unauthorized').detail).toBe('Missing or invalid x-api-key');
      await clientFor(s.t, other).get('/v1/events').expect(200);

      // Revoking again keeps the first revocation time.
      expect(expectOneJsonLine(await runCli(['keys:revoke', '--key', created.apiKeyId]))).toEqual(revoked);
    });

    it('keys:issue fails for an unknown or missing account', async () => {
      expectFailure(await runCli(['keys:issue', '--account', 'acct_01AAAAAAAAAAAAAAAAAAAAAAAA']), /not found/i);
      expectFailure(await runCli(['keys:issue']), /--account/);
    });

    it('keys:revoke fails for an unknown or missing key id (never for a key secret)', async () => {
      expectFailure(await runCli(['keys:revoke', '--key', 'key_01AAAAAAAAAAAAAAAAAAAAAAAA']), /not found/i);
      expectFailure(await runCli(['keys:revoke']), /--key/);
      const created = await cliJson<{ apiKey: string }>(['accounts:create', '--name', 'Secret Co']);
      const bySecret = await runCli(['keys:revoke', '--key', created.apiKey]);
      expectFailure(bySecret, /not found/i);
      await clientFor(s.t, created).get('/v1/events').expect(200);
    });
  });

  describe('help', () => {
    // Port 1: nothing listens, so help that opened the database would fail on the connection.
    const unreachable = { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/property_ops_test_unreachable' };
    const COMMANDS = [
      'accounts:create',
      'accounts:deactivate',
      'accounts:activate',
      'accounts:legacy-usage',
      'keys:issue',
      'keys:revoke',
      'console:link',
      'sandbox:reset',
    ];

    /** Help: the text on stdout, nothing on stderr, exit 0. */
    function expectHelp(result: CliResult): string {
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      return result.stdout;
    }

    it('--help, -h and help print the usage of every command on stdout and exit 0, without the database', async () => {
      for (const args of [['--help'], ['-h'], ['help']]) {
        const usage = expectHelp(await runCli(args, unreachable));
        expect(usage).toMatch(/^Usage: npm run --silent cli -- <command> \[options\]\n/);
        for (const command of COMMANDS) expect(usage).toContain(`\n  ${command} --`);
        expect(usage).toContain('help [COMMAND]');
      }
    });

    it("COMMAND --help and help COMMAND print that command's usage and what it does, whatever else is missing", async () => {
      for (const command of COMMANDS) {
        const usage = expectHelp(await runCli([command, '--help'], unreachable));
        expect(usage).toMatch(new RegExp(`^Usage: npm run --silent cli -- ${command} --\\S+.*\\n\\S.+\\n$`));
        expect(expectHelp(await runCli(['help', command], unreachable))).toBe(usage);
      }
      expect(expectHelp(await runCli(['keys:issue', '-h'], unreachable))).toContain('--account ACCOUNTID [--legacy | --test]');
    });

    it('help for a command that does not exist is a usage error', async () => {
      expectFailure(await runCli(['help', 'accounts:delete'], unreachable), /Unknown command accounts:delete/);
      expectFailure(await runCli(['accounts:delete', '--help'], unreachable), /Unknown command accounts:delete/);
    });
  });

  describe('usage errors', () => {
    it('fails on an unknown or missing command', async () => {
      expectFailure(await runCli(['accounts:delete', '--account', 'acct_1']), /Unknown command accounts:delete/);
      expectFailure(await runCli([]), /command/i);
    });

    it('fails on an unknown option or an extra argument', async () => {
      expectFailure(await runCli(['accounts:create', '--name', 'Acme', '--colour', 'red']), /colour/);
      expectFailure(await runCli(['accounts:create', '--name', 'Acme', 'extra']), /extra/);
    });

    it('reports a usage error without opening the database', async () => {
      // Port 1: nothing listens, so a command that connected first would fail on the connection instead.
      const unreachable = { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/property_ops_test_unreachable' };
      expectFailure(await runCli(['accounts:create', '--name', 'Acme', '--plan', 'gold'], unreachable), /--plan/);
      expectFailure(await runCli(['keys:revoke'], unreachable), /--key/);
    });

    it('fails with one line naming the variable on a bad configuration', async () => {
      const result = await runCli(['accounts:create', '--name', 'Acme'], { ...process.env, DATABASE_URL: 'mysql://nope' });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/DATABASE_URL/)]);
    });

    it('fails fast, without retrying for half a minute, when the database does not exist', async () => {
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = '/property_ops_test_missing_database';
      const started = Date.now();
      const result = await runCli(['accounts:create', '--name', 'Acme'], { ...process.env, DATABASE_URL: url.toString() });
      expect(Date.now() - started).toBeLessThan(10_000);
      expectFailure(result, /property_ops_test_missing_database/);
    });
  });
});
