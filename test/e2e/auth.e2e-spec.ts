import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { clientFor, createAccount, startApp, TestApp } from '../support/app';
import { cliJson } from '../support/cli';
import { expectProblem } from '../support/problem';
import { statementsWaitingOnLock, waitUntil } from '../support/wait';

const INVALID_KEY = 'Missing or invalid x-api-key';

/**
 * Routes that answer without a key. Spec 5.1 names only GET /v1/health; picture
 * copies too are served behind the key. Any addition here must be a conscious decision.
 */
// The health check, and the API reference (the OpenAPI document and Swagger UI's files under /docs): read before a key exists.
// GET and DELETE /v1/mcp serve nothing: they answer 405 to anyone (MCP clients take it as "no stream"), before any key check.
const PUBLIC_ROUTES = new Set(['GET /v1/health', 'GET /v1/openapi.json', 'GET /v1/mcp', 'DELETE /v1/mcp']);
/** Documentation: the reference's files, and /llms.txt with the pages it lists. */
const isPublic = (route: string) => PUBLIC_ROUTES.has(route) || route.startsWith('GET /docs') || route.startsWith('GET /llms');

/** Every route the app registers, as [METHOD, path with parameters filled in]. */
function registeredRoutes(t: TestApp): Array<[string, string]> {
  const router = t.app.getHttpAdapter().getInstance().router as {
    stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }>;
  };
  const routes: Array<[string, string]> = [];
  for (const layer of router.stack) {
    if (!layer.route || layer.route.path.includes('{*')) continue; // middleware mounted on every path
    for (const method of Object.keys(layer.route.methods)) routes.push([method.toUpperCase(), layer.route.path]);
  }
  return routes;
}

async function expectInvalidKey(res: request.Response, instance = '/v1/events'): Promise<void> {
  const problem = expectProblem(res, 401, 'unauthorized', instance);
  expect(problem.detail).toBe(INVALID_KEY);
  expect(res.headers['x-ratelimit-limit']).toBeUndefined();
}

describe('x-api-key authentication (spec 5)', () => {
  let t: TestApp;
  let second: TestApp;
  let db: DataSource;
  let accounts: AccountsService;

  beforeAll(async () => {
    [t, second] = await Promise.all([startApp(), startApp()]);
    db = t.app.get(DataSource);
    accounts = t.app.get(AccountsService);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), second?.close()]);
  });

  it('lets GET /v1/health through without a key', async () => {
    await t.http.get('/v1/health').expect(200);
    await t.http.get('/v1/health').set('x-api-key', 'garbage').expect(200);
  });

  it('guards every registered route except the listed public ones', async () => {
    const routes = registeredRoutes(t);
    expect(routes).toEqual(
      expect.arrayContaining([
        ['GET', '/v1/events'],
        ['GET', '/v1/health'],
      ]),
    );
    for (const [method, pattern] of routes) {
      const path = pattern.replace(/:\w+/g, 'x_1');
      const res = await request(t.app.getHttpServer())[method.toLowerCase() as 'get'](path).set('content-type', 'application/json');
      if (isPublic(`${method} ${pattern}`)) {
        expect(res.status).not.toBe(401);
        continue;
      }
      // The account console (docs/console.md) takes no x-api-key: its own session, from a sign-in link. Without one
      // nothing is served (401 pages; the sign-in routes refuse a missing link, an asset route an unknown file), but the
      // page a sign-out leads to, which says only that.
      if (pattern === '/console/signedout') {
        expect({ path, status: res.status, signedOut: res.text.includes('You have signed out') }).toEqual({
          path,
          status: 200,
          signedOut: true,
        });
        continue;
      }
      if (pattern.startsWith('/console')) {
        expect({ method, path, refused: [400, 401, 403, 404].includes(res.status) }).toEqual({ method, path, refused: true });
        continue;
      }
      expect({ method, path, status: res.status, detail: res.body.detail }).toEqual({ method, path, status: 401, detail: INVALID_KEY });
    }
  });

  it('answers a missing key with 401', async () => {
    await expectInvalidKey(await t.http.get('/v1/events').expect(401));
    const head = await t.http.head('/v1/events').expect(401);
    expect(head.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers an unknown, well-formed key with 401', async () => {
    await expectInvalidKey(
      await t.http
        .get('/v1/events')
        .set('x-api-key', `popk_${randomBytes(32).toString('base64url')}`)
        .expect(401),
    );
  });

  it.each([
    ['empty', ''],
    ['too short', 'popk_abc'],
    ['too long', `popk_${'a'.repeat(300)}`],
    ['with a space', 'popk_aaaaaaaa aaaaaaaaaaaaaaaa'],
    ['with a tab', 'popk_aaaaaaaa\taaaaaaaaaaaaaaaa'],
    ['a bearer token', 'Bearer popk_aaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['SQL', "' OR 1=1 --aaaaaaaaaaaaaaaaaaa"],
  ])('answers a malformed key (%s) with 401', async (_label, key) => {
    await expectInvalidKey(await t.http.get('/v1/events').set('x-api-key', key).expect(401));
  });

  it('answers a key sent in another header with 401', async () => {
    const account = await createAccount(t);
    await expectInvalidKey(await t.http.get('/v1/events').set('authorization', `Bearer ${account.apiKey}`).expect(401));
    await expectInvalidKey(await t.http.get('/v1/events').set('api-key', account.apiKey).expect(401));
  });

  it('answers a key sent twice with 401, and accepts the header name in any case', async () => {
    const account = await createAccount(t);
    const res = await t.http.get('/v1/events').set('x-api-key', [account.apiKey, account.apiKey] as unknown as string); // sent as two header lines.expect(401);
    await expectInvalidKey(res);
    await t.http.get('/v1/events').set('X-API-Key', account.apiKey).expect(200);
  });

  describe('a key in the query string is never used', () => {
    it.each(['x-api-key', 'apiKey', 'api_key'])('answers ?%s=<valid key> without the header with 401', async (name) => {
      const account = await createAccount(t);
      const res = await t.http.get(`/v1/events?${name}=${encodeURIComponent(account.apiKey)}`).expect(401);
      await expectInvalidKey(res);
    });

    it.each(['x-api-key', 'apiKey', 'api_key'])('answers ?%s=<valid key> with an invalid header with 401', async (name) => {
      const account = await createAccount(t);
      const res = await t.http
        .get(`/v1/events?${name}=${encodeURIComponent(account.apiKey)}`)
        .set('x-api-key', 'popk_not-a-real-key-at-all')
        .expect(401);
      await expectInvalidKey(res);
    });

    it.each(['x-api-key', 'apiKey', 'api_key'])(
      'refuses ?%s= with a valid header: the parameter is unknown (400 objectStrict)',
      async (name) => {
        const account = await createAccount(t);
        const res = await clientFor(t, account)
          .get(`/v1/events?${name}=${encodeURIComponent(account.apiKey)}`)
          .expect(400);
        const problem = expectProblem(res, 400, 'objectStrict', '/v1/events');
        expect(problem.errors).toEqual([{ pointer: `#/${name}`, detail: expect.stringContaining(name) }]);
        // The problem never echoes the key back.
        expect(res.text).not.toContain(account.apiKey);
      },
    );

    it('never echoes a key from the query string in a 401 either', async () => {
      const account = await createAccount(t);
      const res = await t.http.get(`/v1/events?api_key=${encodeURIComponent(account.apiKey)}`).expect(401);
      expect(res.text).not.toContain(account.apiKey);
      expect(res.body.instance).toBe('/v1/events');
    });
  });

  describe('subscription and plan (403 subscription_inactive)', () => {
    it('accepts a key of an active pro or business account', async () => {
      for (const plan of ['pro', 'business'] as const) {
        const account = await createAccount(t, { plan });
        await clientFor(t, account).get('/v1/events').expect(200);
      }
    });

    it('answers a valid key on the basic plan with 403', async () => {
      const account = await createAccount(t, { plan: 'basic' });
      const res = await clientFor(t, account).get('/v1/events').expect(403);
      const problem = expectProblem(res, 403, 'subscription_inactive', '/v1/events');
      expect(problem.title).toBe('Subscription inactive');
      expect(problem.detail).not.toBe(INVALID_KEY);
    });

    it('answers a valid key of an account created inactive with 403', async () => {
      const account = await createAccount(t, { active: false });
      expectProblem(await clientFor(t, account).get('/v1/events').expect(403), 403, 'subscription_inactive');
    });

    it('answers 403 before validating the request, and before any rate limit', async () => {
      const account = await createAccount(t, { plan: 'basic' });
      const res = await clientFor(t, account).get('/v1/events?unknown=1').expect(403);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('applies deactivation and reactivation on the next request in every API process', async () => {
      const account = await createAccount(t);
      const one = clientFor(t, account);
      const two = clientFor(second, account);
      await one.get('/v1/events').expect(200);
      await two.get('/v1/events').expect(200);

      expect(await cliJson(['accounts:deactivate', '--account', account.accountId])).toEqual({
        accountId: account.accountId,
        subscriptionStatus: 'inactive',
      });
      expectProblem(await one.get('/v1/events').expect(403), 403, 'subscription_inactive');
      expectProblem(await two.get('/v1/events').expect(403), 403, 'subscription_inactive');

      expect(await cliJson(['accounts:activate', '--account', account.accountId])).toEqual({
        accountId: account.accountId,
        subscriptionStatus: 'active',
      });
      await one.get('/v1/events').expect(200);
      await two.get('/v1/events').expect(200);
    });

    it('lets a key of an account created inactive in once it is activated', async () => {
      const account = await createAccount(t, { active: false });
      await clientFor(t, account).get('/v1/events').expect(403);
      await accounts.setSubscriptionStatus(account.accountId, 'active');
      await clientFor(t, account).get('/v1/events').expect(200);
    });
  });

  describe('revocation', () => {
    it('applies on the next request in every API process, and only to that key', async () => {
      const account = await createAccount(t);
      const other = await cliJson<{ apiKeyId: string; apiKey: string }>(['keys:issue', '--account', account.accountId]);
      await clientFor(t, account).get('/v1/events').expect(200);
      await clientFor(second, account).get('/v1/events').expect(200);

      const revoked = await cliJson(['keys:revoke', '--key', account.apiKeyId]);
      expect(revoked).toEqual({ apiKeyId: account.apiKeyId, revokedAt: expect.any(String) });
      await expectInvalidKey(await clientFor(t, account).get('/v1/events').expect(401));
      await expectInvalidKey(await clientFor(second, account).get('/v1/events').expect(401));

      // The account's other key still works, in both processes.
      await clientFor(t, other).get('/v1/events').expect(200);
      await clientFor(second, other).get('/v1/events').expect(200);
    });

    it('answers a revoked key of an inactive account with 401, not 403', async () => {
      const account = await createAccount(t, { active: false });
      await accounts.revokeKey(account.apiKeyId);
      await expectInvalidKey(await clientFor(t, account).get('/v1/events').expect(401));
    });

    it('never brings a revoked key back on reactivation', async () => {
      const account = await createAccount(t);
      await accounts.revokeKey(account.apiKeyId);
      await accounts.setSubscriptionStatus(account.accountId, 'inactive');
      await accounts.setSubscriptionStatus(account.accountId, 'active');
      await expectInvalidKey(await clientFor(t, account).get('/v1/events').expect(401));
    });
  });

  describe('legacy keys', () => {
    it('authenticate the Platform API like platform keys', async () => {
      const account = await createAccount(t);
      const legacy = await cliJson<{ apiKeyId: string; apiKey: string }>(['keys:issue', '--account', account.accountId, '--legacy']);
      const [row] = await db.query('SELECT kind, account_id FROM api_keys WHERE id = $1', [legacy.apiKeyId]);
      expect(row).toEqual({ kind: 'legacy', account_id: account.accountId });
      await clientFor(t, legacy).get('/v1/events').expect(200);
      await clientFor(second, legacy).get('/v1/events').expect(200);
    });

    it('follow the account subscription and can be revoked', async () => {
      const account = await createAccount(t);
      const legacy = await accounts.issueKey(account.accountId, 'legacy');
      await accounts.setSubscriptionStatus(account.accountId, 'inactive');
      expectProblem(await clientFor(t, legacy).get('/v1/events').expect(403), 403, 'subscription_inactive');
      await accounts.setSubscriptionStatus(account.accountId, 'active');
      await clientFor(t, legacy).get('/v1/events').expect(200);
      await accounts.revokeKey(legacy.apiKeyId);
      await expectInvalidKey(await clientFor(t, legacy).get('/v1/events').expect(401));
    });
  });

  describe('last_used_at', () => {
    const lastUsed = async (apiKeyId: string): Promise<Date | null> => {
      const [row] = await db.query('SELECT last_used_at FROM api_keys WHERE id = $1', [apiKeyId]);
      return row.last_used_at;
    };
    const eventually = (apiKeyId: string): Promise<Date> => waitUntil(() => lastUsed(apiKeyId), 5_000, 'last_used_at');
    /**
     * Runs `requests` while api_keys is locked against writes (reads go on), then one request with a fresh key,
     * whose touch must come: once that touch waits on the lock, any touch `requests` sent (issued before it)
     * waits too. Returns how many touches were waiting; the lock is released before returning.
     */
    const touchesWhileLocked = async (requests: () => Promise<unknown>): Promise<number> => {
      const witness = await createAccount(t);
      const lock = db.createQueryRunner();
      await lock.startTransaction();
      try {
        await lock.query('LOCK TABLE api_keys IN SHARE MODE');
        await requests();
        await clientFor(t, witness).get('/v1/events').expect(200);
        return await statementsWaitingOnLock(db, 'UPDATE api_keys SET last_used_at');
      } finally {
        await lock.rollbackTransaction();
        await lock.release();
      }
    };

    it('is empty for a key never used, and set once the key authenticates', async () => {
      const account = await createAccount(t);
      const unused = await accounts.issueKey(account.accountId, 'platform');
      expect(await lastUsed(account.apiKeyId)).toBeNull();
      const before = Date.now();
      await clientFor(t, account).get('/v1/events').expect(200);
      const used = await eventually(account.apiKeyId);
      expect(Math.abs(used.getTime() - before)).toBeLessThan(10_000);
      expect(await lastUsed(unused.apiKeyId)).toBeNull();
    });

    it('is written at most once a minute, not on every request', async () => {
      const account = await createAccount(t);
      await clientFor(t, account).get('/v1/events').expect(200);
      const first = await eventually(account.apiKeyId);
      expect(await touchesWhileLocked(() => clientFor(t, account).get('/v1/events').expect(200))).toBe(1); // the witness's only
      expect((await lastUsed(account.apiKeyId))?.getTime()).toBe(first.getTime());
    });

    it('is not set by a rejected key (inactive account)', async () => {
      const account = await createAccount(t, { active: false });
      expect(await touchesWhileLocked(() => clientFor(t, account).get('/v1/events').expect(403))).toBe(1); // the witness's only
      expect(await lastUsed(account.apiKeyId)).toBeNull();
    });
  });

  it('scopes the caller to the key account', async () => {
    const a = await createAccount(t);
    const b = await createAccount(t);
    const res = await request(t.app.getHttpServer()).get('/v1/events').set('x-api-key', a.apiKey).expect(200);
    expect(res.body).toEqual({ data: [], nextCursor: null, hasMore: false });
    expect(a.accountId).not.toBe(b.accountId);
  });
});
