import request from 'supertest';
import { DataSource } from 'typeorm';
import { clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { spawnApiProcess } from '../support/api-process';
import { freePort } from '../support/private-services';
import { cliJson, runCli } from '../support/cli';
import {
  consoleClient,
  ConsoleClient,
  consoleSignIn,
  exchangeLink,
  inputValue,
  linkPath,
  mintLink,
  setCookie,
  tokenOf,
} from '../support/console';
import { pageText } from '../support/console-pages';
import { createSubscription } from '../support/webhooks-api';

/**
 * The account console over HTTP (issue 24, docs/console.md): sign-in links (used, expired, tampered),
 * session cookies, CSRF, the security headers, tenancy, inactive accounts, and what never reaches a log.
 * The same flows in a real browser: console-browser.e2e-spec.ts.
 */
describe('account console over HTTP', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startApp();
    db = t.app.get(DataSource);
  });

  afterAll(() => t?.close());

  describe('sign-in links', () => {
    it('opening a link uses nothing; its form starts a session and redirects to /console with the session cookie', async () => {
      const { accountId } = await createAccount(t);
      const link = await mintLink(t, accountId);
      expect(link.url).toMatch(/^http:\/\/localhost:3000\/console\/signin\?token=popcl_/);
      expect(new Date(link.expiresAt).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);

      // Opened twice (a mail scanner, then the person): still usable.
      await request(t.app.getHttpServer()).get(linkPath(link.url)).expect(200);
      const signedIn = await exchangeLink(t, link.url);
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.location).toBe('/console');
      const cookie = setCookie(signedIn, 'pop_console')!;
      expect(cookie.header).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict$/);
      expect(cookie.header).not.toContain('Secure');

      const home = await request(t.app.getHttpServer()).get('/console').set('Cookie', cookie.pair).expect(200);
      expect(home.text).toContain(accountId);
    });

    it('a used link is refused with a page saying so (410), opened or posted again', async () => {
      const { accountId } = await createAccount(t);
      const { url } = await mintLink(t, accountId);
      expect((await exchangeLink(t, url)).status).toBe(303);

      const again = await request(t.app.getHttpServer()).get(linkPath(url)).expect(410);
      expect(again.headers['content-type']).toMatch(/^text\/html/);
      expect(again.text).toContain('already been used');
    });

    it('an expired link is refused with a page saying so (410)', async () => {
      const { accountId } = await createAccount(t);
      const { url } = await mintLink(t, accountId, 1);
      await db.query(`UPDATE console_links SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [accountId]);
      const res = await request(t.app.getHttpServer()).get(linkPath(url)).expect(410);
      expect(res.text).toContain('has expired');
    });

    it('a tampered or malformed link is refused with a page saying so (400)', async () => {
      const { accountId } = await createAccount(t);
      const token = tokenOf((await mintLink(t, accountId)).url);
      const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
      for (const value of [tampered, 'popcl_short', '']) {
        const res = await request(t.app.getHttpServer())
          .get(`/console/signin?token=${encodeURIComponent(value)}`)
          .expect(400);
        expect(res.text).toContain('not valid');
      }
    });

    it('the sign-in form is refused without the landing page’s nonce cookie (login CSRF), and the link stays unused', async () => {
      const { accountId } = await createAccount(t);
      const { url } = await mintLink(t, accountId);
      await request(t.app.getHttpServer())
        .post('/console/signin')
        .type('form')
        .send({ token: tokenOf(url), nonce: 'x' })
        .expect(403);
      expect((await exchangeLink(t, url)).status).toBe(303);
    });

    it('the CLI prints a link ({url, expiresAt}) that signs in; bad options are usage errors', async () => {
      const { accountId } = await createAccount(t);
      const out = await cliJson<{ url: string; expiresAt: string }>(['console:link', '--account', accountId, '--minutes', '5']);
      expect(Object.keys(out)).toEqual(['url', 'expiresAt']);
      expect(Math.abs(new Date(out.expiresAt).getTime() - Date.now() - 5 * 60_000)).toBeLessThan(30_000);
      expect((await exchangeLink(t, out.url)).status).toBe(303);
      for (const args of [['--account', accountId, '--minutes', '61'], ['--account', accountId, '--minutes', 'ten'], []]) {
        const result = await runCli(['console:link', ...args]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain('Usage:');
      }
      expect((await runCli(['console:link', '--account', 'acct_nobody'])).stderr).toContain('was not found');
    }, 60_000);

    it('links are minted for 1 to 60 minutes of an existing account', async () => {
      const { accountId } = await createAccount(t);
      await expect(mintLink(t, accountId, 0)).rejects.toThrow(RangeError);
      await expect(mintLink(t, accountId, 61)).rejects.toThrow(RangeError);
      await expect(mintLink(t, 'acct_nobody')).rejects.toThrow('was not found');
    });
  });

  describe('sessions', () => {
    it('never authenticate /v1: the cookie is not an API key', async () => {
      const { accountId } = await createAccount(t);
      const session = await consoleSignIn(t, accountId);
      const res = await request(t.app.getHttpServer()).get('/v1/webhooks').set('Cookie', session.cookie).expect(401);
      expect(res.body.detail).toBe('Missing or invalid x-api-key');
    });

    it('end on sign-out, and after 30 idle minutes', async () => {
      const { accountId } = await createAccount(t);
      const a = await consoleSignIn(t, accountId);
      const out = await a.post('/console/signout').expect(303);
      expect(out.headers.location).toBe('/console/signedout');
      expect(setCookie(out, 'pop_console')!.header).toContain('Max-Age=0');
      expect((await request(t.app.getHttpServer()).get('/console/signedout').expect(200)).text).toContain('You have signed out');
      expect((await a.get('/console').expect(401)).text).toContain('session has ended');
      // Posted again (a reload of the old page's form): the session is over, a page says so; nothing else happens.
      expect((await a.post('/console/signout').expect(401)).text).toContain('session has ended');

      const b = await consoleSignIn(t, accountId);
      await b.get('/console/keys').expect(200);
      await db.query(`UPDATE console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE account_id = $1`, [accountId]);
      await b.get('/console/keys').expect(401);
    });

    it('without a session every page is a 401 page, not a problem document', async () => {
      const res = await request(t.app.getHttpServer()).get('/console/webhooks').expect(401);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    });

    it("outside production, pages that send people to the web app also name a local operator's way in: the CLI's link", async () => {
      const server = t.app.getHttpServer();
      const cli = 'npm run --silent cli -- console:link --account acct_…';
      const never = pageText((await request(server).get('/console').expect(401)).text);
      expect(never).toContain('Not signed in The account console opens from a sign-in link: open it from the web app.');
      expect(never).toContain(cli);
      const ended = pageText((await request(server).get('/console').set('Cookie', 'pop_console=gone').expect(401)).text);
      expect(ended).toContain('Your console session has ended');
      expect(ended).toContain(cli);
      expect(pageText((await request(server).get('/console/signin?token=popcl_nope').expect(400)).text)).toContain(cli);
      expect(pageText((await request(server).get('/console/signedout').expect(200)).text)).toContain(cli);
    });

    it('words the forms for this server: a webhook URL as its rules let one through, test keys linked to a page that is served', async () => {
      const { accountId } = await createAccount(t);
      const session = await consoleSignIn(t, accountId);
      // The test environment has ALLOW_PRIVATE_URLS=true, as a developer's server trying a local receiver.
      expect(pageText((await session.get('/console/webhooks').expect(200)).text)).toContain(
        'Endpoint URL (https on a public domain name; this server also takes http and private or loopback addresses, such as http://127.0.0.1:4000/ (ALLOW_PRIVATE_URLS, development only))',
      );
      const keys = (await session.get('/console/keys').expect(200)).text;
      expect(keys).toContain('<a href="/llms/test-mode.md">how test mode works</a>');
      expect(pageText(keys)).not.toContain('docs/test-mode.md');
      expect((await request(t.app.getHttpServer()).get('/llms/test-mode.md').expect(200)).text).toMatch(/^# Test mode/);
    });
  });

  describe('safe by construction', () => {
    let session: ConsoleClient;
    let account: TestAccount;
    let accountId: string;

    beforeAll(async () => {
      account = await createAccount(t);
      accountId = account.accountId;
      session = await consoleSignIn(t, accountId);
    });

    it('refuses a state change without the session’s CSRF token (403), and does nothing', async () => {
      const before = await db.query(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, [accountId]);
      for (const token of [null, 'not-the-token', '']) {
        const res = await session.post('/console/keys', { label: 'CSRF' }, token).expect(403);
        expect(res.text).toContain('security token');
      }
      // Another session's token is not this session's.
      const other = await consoleSignIn(t, accountId);
      await session.post('/console/keys', { label: 'CSRF' }, other.csrf).expect(403);
      const after = await db.query(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, [accountId]);
      expect(after[0].n).toBe(before[0].n);
    });

    it('sends a CSP without unsafe-inline or unsafe-eval, and no inline script or style, on every page', async () => {
      const { id } = (await createSubscription(clientFor(t, account), { url: 'https://localhost/console/csp', eventFilters: ['*'] })) as {
        id: string;
      };
      for (const path of [
        '/console',
        '/console/keys',
        '/console/webhooks',
        `/console/webhooks/${id}`,
        '/console/events',
        '/console/signin?token=x',
      ]) {
        const res = await session.get(path);
        const csp = res.headers['content-security-policy'];
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("style-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
        expect(res.text).not.toMatch(/\sstyle=|<style/);
        expect(res.text).not.toMatch(/https?:\/\/(?!localhost|127\.0\.0\.1)/);
      }
    });

    it('shows a created key once, on a no-store page; it is never shown again', async () => {
      const created = await session.post('/console/keys', { label: 'Once' }).expect(303);
      const res = await session.get(created.headers.location).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const key = /popk_[A-Za-z0-9_-]{43}/.exec(res.text)![0];
      const list = await session.get('/console/keys').expect(200);
      expect(list.headers['cache-control']).toBe('no-store');
      expect(list.text).not.toContain(key);
      expect(list.text).toContain(`…${key.slice(-4)}`);
    });

    it('shows a signing secret once (create, rotate) on a no-store page, also as whsec_ for Standard Webhooks libraries', async () => {
      const added = await session
        .post('/console/webhooks', { url: 'https://localhost/console/secret-once', eventFilters: 'property.*' })
        .expect(303);
      const created = await session.get(added.headers.location).expect(200);
      expect(created.headers['cache-control']).toBe('no-store');
      const id = /\/console\/webhooks\/(sub_[0-9A-Z]{26})/.exec(created.text)![1];
      const secret = /data-secret="signing">([^<]+)</.exec(created.text)![1];
      expect(/data-secret="whsec">([^<]+)</.exec(created.text)![1]).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
      const rotation = await session.post(`/console/webhooks/${id}/rotate`).expect(303);
      const rotated = await session.get(rotation.headers.location).expect(200);
      expect(rotated.headers['cache-control']).toBe('no-store');
      expect(/data-secret="signing">([^<]+)</.exec(rotated.text)![1]).not.toBe(secret);
      expect((await session.get(`/console/webhooks/${id}`).expect(200)).text).not.toContain(secret);
    });

    it('serves its script and stylesheet from the app, cacheable for good under a content-hashed name', async () => {
      const home = await session.get('/console').expect(200);
      const assets = [...home.text.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets).toHaveLength(2);
      for (const path of assets) {
        const res = await request(t.app.getHttpServer()).get(path).expect(200);
        expect(res.headers['cache-control']).toContain('immutable');
      }
      await request(t.app.getHttpServer()).get('/console/assets/console.0000.js').expect(404);
    });
  });

  describe('the webhook portal follows the REST rules', () => {
    let session: ConsoleClient;
    let accountId: string;

    beforeAll(async () => {
      ({ accountId } = await createAccount(t));
      session = await consoleSignIn(t, accountId);
    });

    it('a duplicate URL is a 409 page naming the subscription that has it', async () => {
      const first = await session.post('/console/webhooks', { url: 'https://localhost/console/dup', eventFilters: '*' }).expect(303);
      const id = /\/console\/webhooks\/(sub_[0-9A-Z]{26})/.exec(first.headers.location)![1];
      const again = await session.post('/console/webhooks', { url: 'https://localhost/console/dup', eventFilters: '*' }).expect(409);
      expect(again.text).toContain(id);
      // The form keeps what was typed.
      expect(inputValue(again.text, 'url')).toBe('https://localhost/console/dup');
    });

    it('the URL policy and the filters’ rules answer 400 in words', async () => {
      const http = await session.post('/console/webhooks', { url: 'ftp://example.com/x', eventFilters: '*' }).expect(400);
      expect(http.text).toContain('Webhook url');
      const filters = await session
        .post('/console/webhooks', { url: 'https://localhost/console/f', eventFilters: 'not a.filter!' })
        .expect(400);
      expect(filters.text).toContain('Event filter &quot;a.filter!&quot; is not a filter');
      const retries = await session
        .post('/console/webhooks', { url: 'https://localhost/console/r', eventFilters: '*', maxRetries: '11' })
        .expect(400);
      expect(retries.text).toContain('maxRetries');
    });
  });

  describe('an inactive account (spec 5.3)', () => {
    it('sees its status, cannot use webhooks, events or create keys, and can still revoke keys', async () => {
      const account = await createAccount(t, { active: false });
      const session = await consoleSignIn(t, account.accountId);
      expect((await session.get('/console').expect(200)).text).toContain('API access is paused');
      expect((await session.get('/console/keys').expect(200)).text).toContain('API access is paused');
      await session.get('/console/webhooks').expect(403);
      await session.get('/console/events').expect(403);
      await session.post('/console/keys', { label: 'No' }).expect(403);
      await session.get(`/console/keys/${account.apiKeyId}/revoke`).expect(200);
      await session.post(`/console/keys/${account.apiKeyId}/revoke`).expect(303);
      const [key] = await db.query(`SELECT revoked_at FROM api_keys WHERE id = $1`, [account.apiKeyId]);
      expect(key.revoked_at).not.toBeNull();
      expect((await session.get('/console/keys').expect(200)).text).toContain('Key revoked');
    });
  });

  describe('with an https public address and tight rate limits', () => {
    let strict: TestApp;

    beforeAll(async () => {
      strict = await startApp({
        PUBLIC_BASE_URL: 'https://console.example.com',
        RATE_LIMIT_PER_SECOND: '1',
        RATE_LIMIT_BURST: '2',
        RATE_LIMIT_WINDOW_SECONDS: '60',
      });
    });

    afterAll(() => strict?.close());

    it('sets Secure on its cookies, and limits state changes like the API does (429 with Retry-After)', async () => {
      const { accountId } = await createAccount(strict);
      const link = await mintLink(strict, accountId);
      expect(link.url).toMatch(/^https:\/\/console\.example\.com\/console\/signin\?token=/);
      const signedIn = await exchangeLink(strict, link.url);
      const cookie = setCookie(signedIn, 'pop_console')!;
      expect(cookie.header).toContain('; Secure');
      const home = await request(strict.app.getHttpServer()).get('/console').set('Cookie', cookie.pair).expect(200);
      const session = consoleClient(strict, cookie.pair, inputValue(home.text, '_csrf')!);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await session.post('/console/keys', { label: `k${i}` })).status);
      expect(statuses.slice(0, 2)).toEqual([303, 303]);
      expect(statuses).toContain(429);
      const limited = await session.post('/console/keys', { label: 'late' }).expect(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.text).toContain('Too many requests');
    });
  });

  it('never logs a link token, a session token or a key (the built API at info level)', async () => {
    const { accountId } = await createAccount(t);
    // Generous: the built API may need a build first, and starts slowly on a loaded machine.
    const api = await spawnApiProcess(await freePort(), {}, 90_000);
    try {
      const { url } = await mintLink(t, accountId);
      const token = tokenOf(url);
      const landing = await request(api.url).get(linkPath(url)).expect(200);
      const nonce = setCookie(landing, 'pop_console_signin')!.pair;
      const signedIn = await request(api.url)
        .post('/console/signin')
        .set('Cookie', nonce)
        .type('form')
        .send({ token, nonce: inputValue(landing.text, 'nonce')! })
        .expect(303);
      const cookie = setCookie(signedIn, 'pop_console')!.pair;
      const home = await request(api.url).get('/console').set('Cookie', cookie).expect(200);
      const created = await request(api.url)
        .post('/console/keys')
        .set('Cookie', cookie)
        .type('form')
        .send({ label: 'Logged?', _csrf: inputValue(home.text, '_csrf')!, _form: inputValue(home.text, '_form')! })
        .expect(303);
      const shown = await request(api.url).get(created.headers.location).set('Cookie', cookie).expect(200);
      const key = /popk_[A-Za-z0-9_-]{43}/.exec(shown.text)![0];
      await request(api.url).get(linkPath(url)).expect(410);
      const output = api.output();
      expect(output).toContain('/console/signin');
      for (const secret of [token, cookie.split('=')[1], key, inputValue(home.text, '_csrf')!]) expect(output).not.toContain(secret);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }, 180_000);
});
