import { AccountsService } from '../../src/modules/auth/accounts.service';
import { appSuite, ApiClient, clientFor, createAccount, TestAccount } from '../support/app';
import { ConsoleClient, consoleClient, consoleSignIn, setCookie } from '../support/console';
import { pageText } from '../support/console-pages';
import { createProperty } from '../support/properties';
import { createSubscription, hookUrl } from '../support/webhooks-api';

/**
 * Test mode in the console (issue 35): every page says which mode it is in; the switch is per session (a
 * cookie naming the session); in test mode the webhooks and events pages are the sandbox's, both ways
 * isolated from live; the keys page creates (shown once) and revokes test keys, marked "Test"; clearing
 * test data asks first, then deletes the sandbox's data and leaves live data and keys.
 */
describe('console: test mode', () => {
  const s = appSuite({ REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-console-test-mode` });
  let account: TestAccount;
  let live: ApiClient;
  let test: ApiClient;
  let session: ConsoleClient;
  let testSession: ConsoleClient;

  beforeAll(async () => {
    account = await createAccount(s.t);
    live = clientFor(s.t, account);
    test = clientFor(s.t, await s.t.app.get(AccountsService).issueKey(account.accountId, 'platform', { test: true }));
    session = await consoleSignIn(s.t, account.accountId);
    const switched = await session.post('/console/mode', { mode: 'test', back: '/console/webhooks' }).expect(303);
    expect(switched.headers.location).toBe('/console/webhooks');
    const mode = setCookie(switched, 'pop_console_mode')!;
    expect(mode.header).toMatch(/HttpOnly/);
    expect(mode.header).toMatch(/Path=\/console/);
    testSession = consoleClient(s.t, `${session.cookie}; ${mode.pair}`, session.csrf);
  });

  it('shows the mode on every page, and switches back', async () => {
    for (const path of ['/console', '/console/keys', '/console/webhooks', '/console/events']) {
      expect(pageText((await session.get(path).expect(200)).text)).toContain('Live mode');
      const text = pageText((await testSession.get(path).expect(200)).text);
      expect(text).toContain('Test mode');
      expect(text).toContain('Switch to live mode');
    }
    const back = await testSession.post('/console/mode', { mode: 'live', back: '/console/events' }).expect(303);
    expect(back.headers.location).toBe('/console/events');
    expect(setCookie(back, 'pop_console_mode')!.header).toMatch(/Max-Age=0/);
    // Only console paths are gone back to.
    expect((await testSession.post('/console/mode', { mode: 'test', back: 'https://evil.example/' }).expect(303)).headers.location).toBe(
      '/console',
    );
  });

  it('is per session: a later sign-in starts live, even with the old mode cookie', async () => {
    const other = await consoleSignIn(s.t, account.accountId);
    const mode = testSession.cookie.split('; ').find((c) => c.startsWith('pop_console_mode='))!;
    const text = pageText((await consoleClient(s.t, `${other.cookie}; ${mode}`, other.csrf).get('/console').expect(200)).text);
    expect(text).toContain('Live mode');
  });

  it("in test mode the webhooks pages are the sandbox's, isolated both ways", async () => {
    const liveHook = await createSubscription(live, { url: hookUrl() });
    const testHook = await createSubscription(test, { url: hookUrl() });
    const liveList = (await session.get('/console/webhooks').expect(200)).text;
    const testList = (await testSession.get('/console/webhooks').expect(200)).text;
    expect(liveList).toContain(liveHook.id);
    expect(liveList).not.toContain(testHook.id);
    expect(testList).toContain(testHook.id);
    expect(testList).not.toContain(liveHook.id);
    await testSession.get(`/console/webhooks/${liveHook.id}`).expect(404);
    await session.get(`/console/webhooks/${testHook.id}`).expect(404);
    // A subscription added in test mode is the sandbox's.
    const url = hookUrl();
    await testSession.post('/console/webhooks', { url, eventFilters: '*' }).expect(303);
    expect(JSON.stringify((await test.get('/v1/webhooks').expect(200)).body)).toContain(url);
    expect(JSON.stringify((await live.get('/v1/webhooks').expect(200)).body)).not.toContain(url);
  });

  it("in test mode the events page is the sandbox's feed", async () => {
    const testProperty = await createProperty(test);
    const liveProperty = await createProperty(live);
    const inTest = (await testSession.get('/console/events').expect(200)).text;
    const inLive = (await session.get('/console/events').expect(200)).text;
    expect(inTest).toContain(testProperty.propertyId);
    expect(inTest).not.toContain(liveProperty.propertyId);
    expect(inLive).toContain(liveProperty.propertyId);
    expect(inLive).not.toContain(testProperty.propertyId);
  });

  it('counts live and test keys apart on the overview, revoked ones in neither', async () => {
    // The account's first key (live) and the test key of beforeAll, in either mode.
    for (const client of [session, testSession]) {
      const text = pageText((await client.get('/console').expect(200)).text);
      expect(text).toContain('Live API keys 1 ');
      expect(text).toContain('Test API keys 1 ');
    }
    const extra = await s.t.app.get(AccountsService).issueKey(account.accountId, 'platform', { test: true });
    expect(pageText((await session.get('/console').expect(200)).text)).toContain('Test API keys 2 ');
    await session.post(`/console/keys/${extra.apiKeyId}/revoke`).expect(303);
    const text = pageText((await session.get('/console').expect(200)).text);
    expect(text).toContain('Live API keys 1 ');
    expect(text).toContain('Test API keys 1 ');
  });

  it('creates a test key (shown once, popk_test_) and revokes it, marked Test', async () => {
    const created = await testSession.post('/console/keys', { label: 'Sandbox CI', test: 'true' }).expect(303);
    const shown = await testSession.get(created.headers.location as string).expect(200);
    const key = /popk_test_[A-Za-z0-9_-]{43}/.exec(shown.text)?.[0];
    expect(key).toBeDefined();
    await testSession.get(created.headers.location as string).expect(410);
    const sandboxApi = clientFor(s.t, { apiKey: key! });
    expect((await sandboxApi.get('/v1/properties').expect(200)).headers['x-test-mode']).toBe('true');
    const keys = (await session.get('/console/keys').expect(200)).text;
    const row = keys.split('<tr').find((r) => r.includes('Sandbox CI'))!;
    expect(row).toContain('>Test<');
    const apiKeyId = /key_[0-9A-Z]{26}/.exec(row)![0];
    await session.post(`/console/keys/${apiKeyId}/revoke`).expect(303);
    await sandboxApi.get('/v1/properties').expect(401);
  });

  it('clears test data after a confirmation page: sandbox emptied, live data and keys kept', async () => {
    const liveProperty = await createProperty(live);
    await createProperty(test);
    const confirm = await session.get('/console/sandbox/reset').expect(200);
    expect(pageText(confirm.text)).toContain('Clear test data?');
    const done = await session.post('/console/sandbox/reset').expect(303);
    expect(done.headers.location).toMatch(/^\/console\/sandbox\/reset\/done\?rows=[1-9]\d*$/);
    expect(pageText((await session.get(done.headers.location as string).expect(200)).text)).toMatch(/\d+ rows of test data deleted/);
    expect((await test.get('/v1/properties').expect(200)).body.data).toEqual([]);
    await live.get(`/v1/properties/${liveProperty.propertyId}`).expect(200);
    await test.get('/v1/properties').expect(200);
  });
});
