import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createPlatformClient, must, PlatformApiError } from '../../clients/typescript/src';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { SandboxResetService } from '../../src/modules/sandbox/sandbox-reset.service';
import { ApiClient, appSuite, clientFor, createAccount, TestAccount, TestApp } from '../support/app';
import { validBooking } from '../support/bookings';
import { feedEvents } from '../support/events';
import { TINY_JPEG } from '../support/images';
import { ANN, createChecklist, createJob, provider } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { createProperty, uniq, validProperty } from '../support/properties';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';

/**
 * Test mode (issue 35, docs/test-mode.md) end to end: test keys act on the account's sandbox, isolated from
 * the live data both ways for every resource kind (REST, MCP, SDK), with their own idempotency records, events
 * and webhooks (delivered for real, marked X-Test-Mode); the provider-side helpers answer them where
 * TEST_HELPERS_ENABLED is off; the legacy API refuses them; clearing the sandbox leaves live data and keys.
 */
const ENV = webhookTestEnv('test-mode', { TEST_HELPERS_ENABLED: 'false', RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '2000' });

/** One resource of each kind, and how to read it back (a GET that is a 404 from the other mode). */
interface Made {
  kind: string;
  id: string;
  read: string;
}

async function imageServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/p.jpg`, server };
}

/** Every resource kind an account can hold, made through the API with `api`. */
async function makeOneOfEach(api: ApiClient, images: string, hooks: string): Promise<Made[]> {
  const property = await createProperty(api);
  const propertyId = property.propertyId;
  const picture = (await api.post('/v1/propertyPictures').send({ propertyId, sourceId: uniq(), sourceUrl: images }).expect(201)).body;
  const checklist = await createChecklist(api, propertyId);
  const booking = (await api.post('/v1/bookings').send(validBooking(propertyId)).expect(201)).body;
  const reminder = (await api.post('/v1/reminders').send({ title: 'Boiler', date: booking.endDate, propertyId }).expect(201)).body;
  const job = await createJob(api, propertyId);
  const comment = (await api.post(`/v1/jobRequests/${job.jobRequestId}/comments`).send({ message: 'Hello' }).expect(201)).body;
  const feed = (
    await api
      .post(`/v1/properties/${propertyId}/calendarFeeds`)
      .send({ url: `${hooks}/cal-${uniq()}.ics` })
      .expect(201)
  ).body;
  const webhook = (
    await api
      .post('/v1/webhooks')
      .send({ url: `${hooks}/${uniq()}`, eventFilters: ['*'] })
      .expect(201)
  ).body;
  return [
    { kind: 'property', id: propertyId, read: `/v1/properties/${propertyId}` },
    { kind: 'picture', id: picture.pictureId, read: `/v1/propertyPictures/${picture.pictureId}/content` },
    { kind: 'checklist', id: checklist.checklistId, read: `/v1/properties/${propertyId}/checklists` },
    { kind: 'booking', id: booking.bookingId, read: `/v1/bookings/${booking.bookingId}` },
    { kind: 'reminder', id: reminder.reminderId, read: `/v1/reminders/${reminder.reminderId}` },
    { kind: 'job request', id: job.jobRequestId, read: `/v1/jobRequests/${job.jobRequestId}` },
    { kind: 'comment', id: comment.commentId, read: `/v1/jobRequests/${job.jobRequestId}/comments` },
    { kind: 'calendar feed', id: feed.id, read: `/v1/calendarFeeds/${feed.id}` },
    { kind: 'webhook subscription', id: webhook.id, read: `/v1/webhooks/${webhook.id}/deliveries` },
  ];
}

describe('test mode', () => {
  const engine = useWebhookEngine(ENV);
  let t: TestApp;
  let account: TestAccount;
  let live: ApiClient;
  let test: ApiClient;
  let testKey: { apiKeyId: string; apiKey: string };
  let hooks: WebhookReceiver;
  let images: { url: string; server: Server };

  beforeAll(async () => {
    ({ t, account, api: live } = engine.started());
    testKey = await t.app.get(AccountsService).issueKey(account.accountId, 'platform', { test: true, label: 'CI' });
    test = clientFor(t, testKey);
    hooks = await engine.receiver();
    images = await imageServer();
  });
  afterAll(() => new Promise<void>((resolve) => (images ? images.server.close(() => resolve()) : resolve())));

  it('a test key has the popk_test_ form, belongs to the live account and is listed as a test key', async () => {
    expect(testKey.apiKey).toMatch(/^popk_test_[A-Za-z0-9_-]{43}$/);
    const keys = await t.app.get(AccountsService).listKeys(account.accountId);
    expect(keys.find((k) => k.apiKeyId === testKey.apiKeyId)).toMatchObject({ kind: 'platform', test: true, label: 'CI' });
    expect(keys.find((k) => k.apiKeyId === account.apiKeyId)).toMatchObject({ test: false });
  });

  it('every answer to a test key carries X-Test-Mode: true (success, 404, 400 problem), none to a live key', async () => {
    const ok = await test.get('/v1/properties').expect(200);
    const missing = await test.get('/v1/properties/prop_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    const invalid = await test.post('/v1/properties').send({});
    expectProblem(missing, 404, 'notFound');
    expectProblem(invalid, 400, 'validationFailed');
    for (const res of [ok, missing, invalid]) expect(res.headers['x-test-mode']).toBe('true');
    expect((await live.get('/v1/properties').expect(200)).headers['x-test-mode']).toBeUndefined();
  });

  it('isolates every resource kind both ways: what one mode made is a 404 from the other, and in none of its lists', async () => {
    const [liveMade, testMade] = await Promise.all([
      makeOneOfEach(live, images.url, hooks.url),
      makeOneOfEach(test, images.url, hooks.url),
    ]);
    for (const [own, other, made] of [
      [live, test, liveMade],
      [test, live, testMade],
    ] as const) {
      for (const { kind, id, read } of made) {
        const mine = await own.get(read);
        expect({ kind, status: mine.status }).toEqual({ kind, status: 200 });
        if (read.endsWith('/checklists') || read.endsWith('/comments')) expect(JSON.stringify(mine.body)).toContain(id);
        const theirs = await other.get(read);
        expect({ kind, status: theirs.status, code: theirs.body.code }).toEqual({ kind, status: 404, code: 'notFound' });
      }
    }
    const listed = async (api: ApiClient) =>
      JSON.stringify(
        await Promise.all(
          ['/v1/properties', '/v1/jobRequests?dateFrom=2030-05-01T00:00:00Z&dateTo=2030-07-01T00:00:00Z', '/v1/webhooks'].map((p) =>
            api.get(p).expect(200),
          ),
        ).then((all) => all.map((r) => r.body)),
      );
    const [liveLists, testLists] = await Promise.all([listed(live), listed(test)]);
    for (const { id } of testMade.filter((m) => ['property', 'job request', 'webhook subscription'].includes(m.kind))) {
      expect(testLists).toContain(id);
      expect(liveLists).not.toContain(id);
    }
    for (const { id } of liveMade.filter((m) => ['property', 'job request', 'webhook subscription'].includes(m.kind))) {
      expect(liveLists).toContain(id);
      expect(testLists).not.toContain(id);
    }
    // The events feed: each mode's own events only.
    const testProperty = testMade[0].id;
    const testEvents = await feedEvents(test, { until: (e) => e.some((x) => JSON.stringify(x.results).includes(testProperty)) });
    expect(JSON.stringify(testEvents)).not.toContain(liveMade[0].id);
    const liveEvents = await feedEvents(live, { until: (e) => e.some((x) => JSON.stringify(x.results).includes(liveMade[0].id)) });
    expect(JSON.stringify(liveEvents)).not.toContain(testProperty);
  });

  it('the same Idempotency-Key with a live and a test key makes two resources', async () => {
    const key = `same-${uniq()}`;
    const body = validProperty();
    const a = await live.post('/v1/properties').set('idempotency-key', key).send(body).expect(201);
    const b = await test.post('/v1/properties').set('idempotency-key', key).send(body).expect(201);
    expect(b.body.propertyId).not.toBe(a.body.propertyId);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    const replay = await test.post('/v1/properties').set('idempotency-key', key).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.propertyId).toBe(b.body.propertyId);
  });

  it('the test helpers answer a test key where TEST_HELPERS_ENABLED is off, a live key gets 404; the sandbox receives each webhook with X-Test-Mode', async () => {
    const sandboxHooks = await engine.receiver();
    const liveHooks = await engine.receiver();
    const sub = await subscribe(test, `${sandboxHooks.url}/sandbox`, ['jobRequest.*']);
    await subscribe(live, `${liveHooks.url}/live`, ['*']);
    const property = await createProperty(test);
    const job = await createJob(test, property.propertyId);
    const helpers = provider(test, job.jobRequestId);
    expect((await helpers.accept(ANN).expect(200)).headers['x-test-mode']).toBe('true');
    await helpers.start().expect(200);
    expect((await helpers.complete().expect(200)).body.status).toBe(7);
    expectProblem(await provider(live, job.jobRequestId).accept(ANN), 404, 'notFound');
    const liveJob = await createJob(live, (await createProperty(live)).propertyId);
    expectProblem(await provider(live, liveJob.jobRequestId).accept(ANN), 404, 'notFound');

    const received = await sandboxHooks.waitFor(4, 15_000);
    const names = received.map((r) => JSON.parse(r.rawBody).eventName as string);
    expect(names).toEqual(
      expect.arrayContaining(['jobRequest.created', 'jobRequest.accepted', 'jobRequest.started', 'jobRequest.completed']),
    );
    for (const r of received) expect(r.headers['x-test-mode']).toBe('true');
    expect(sub.id).toMatch(/^sub_/);
    // The live subscription gets the live job's event, never the sandbox's, and no X-Test-Mode.
    const liveReceived = await liveHooks.waitFor(1, 15_000, (r) => r.rawBody.includes(liveJob.jobRequestId));
    expect(liveReceived[0].headers['x-test-mode']).toBeUndefined();
    expect(liveHooks.requests.some((r) => r.rawBody.includes(job.jobRequestId))).toBe(false);
  });

  it('the legacy API refuses a test key: 403 testKeyNotAccepted', async () => {
    const res = await t.http.get('/legacy/webhook').set('x-api-key', testKey.apiKey);
    expectProblem(res, 403, 'testKeyNotAccepted');
    expect(res.headers['x-test-mode']).toBe('true');
  });

  it('the MCP server acts on the sandbox with a test key', async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const client = new Client({ name: 'e2e-test-mode', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/v1/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${testKey.apiKey}` } },
      }),
    );
    try {
      const answer = (await client.callTool({ name: 'create_property', arguments: validProperty() })) as { structuredContent?: any };
      const propertyId = answer.structuredContent.propertyId as string;
      await test.get(`/v1/properties/${propertyId}`).expect(200);
      expectProblem(await live.get(`/v1/properties/${propertyId}`), 404, 'notFound');
      const liveProperty = await createProperty(live);
      const lookup = (await client.callTool({ name: 'get_property', arguments: { propertyId: liveProperty.propertyId } })) as any;
      expect(lookup.isError).toBe(true);
      expect(JSON.parse(lookup.content[0].text)).toMatchObject({ status: 404, code: 'notFound' });
    } finally {
      await client.close();
    }
    const raw = await t.http
      .post('/v1/mcp')
      .set({ accept: 'application/json, text/event-stream', authorization: `Bearer ${testKey.apiKey}` })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(raw.headers['x-test-mode']).toBe('true');
  });

  it('the SDK works with a test key, on the sandbox', async () => {
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const sdk = createPlatformClient({ baseUrl, apiKey: testKey.apiKey });
    const liveSdk = createPlatformClient({ baseUrl, apiKey: account.apiKey });
    const created = await must(sdk.api.POST('/v1/properties', { body: validProperty() }));
    const read = await must(sdk.api.GET('/v1/properties/{propertyId}', { params: { path: { propertyId: created.propertyId } } }));
    expect(read.propertyId).toBe(created.propertyId);
    const error = await must(
      liveSdk.api.GET('/v1/properties/{propertyId}', { params: { path: { propertyId: created.propertyId } } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect((error as PlatformApiError).status).toBe(404);
    // The provider side, through the same typed client.
    const job = await createJob(test, created.propertyId);
    const accepted = await must(
      sdk.api.POST('/v1/testHelpers/jobRequests/{jobRequestId}/accept', {
        params: { path: { jobRequestId: job.jobRequestId } },
        body: { email: ANN },
      }),
    );
    expect(accepted.status).toBe(2);
  });

  it('clearing the sandbox deletes its data in every declared table, keeps live data and the test key', async () => {
    const liveProperty = await createProperty(live);
    const testProperty = await createProperty(test);
    const reset = await t.app.get(SandboxResetService).reset(account.accountId);
    expect(reset.sandboxAccountId).toMatch(/^sbx_/);
    expect(reset.deleted.properties).toBeGreaterThan(0);
    expect(reset.deleted.events).toBeGreaterThan(0);
    expectProblem(await test.get(`/v1/properties/${testProperty.propertyId}`), 404, 'notFound');
    expect((await test.get('/v1/properties').expect(200)).body.data).toEqual([]);
    await live.get(`/v1/properties/${liveProperty.propertyId}`).expect(200);
    // Every table holding account rows is declared by its module (or is the live account's own: keys, console).
    const { db } = engine.started();
    const tables: Array<{ table_name: string }> = await db.query(
      `SELECT DISTINCT c.table_name FROM information_schema.columns c JOIN pg_class k ON k.relname = c.table_name
        WHERE c.column_name = 'account_id' AND c.table_schema = 'public' AND NOT k.relispartition AND c.table_name NOT LIKE '%_unpartitioned'`,
    );
    const tenantTables = t.app.get(SandboxResetService).tables;
    const declared = new Set(tenantTables.map((x) => x.table));
    const undeclared = tables.map((x) => x.table_name).filter((n) => !declared.has(n) && n !== 'api_keys' && !n.startsWith('console_'));
    expect(undeclared).toEqual([]);
    for (const { table } of tenantTables) {
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [reset.sandboxAccountId]);
      expect({ table, n }).toEqual({ table, n: 0 });
    }
    await test.post('/v1/properties').send(validProperty()).expect(201);
  });

  it('revocation and deactivation apply to test keys (the live account decides)', async () => {
    const accounts = t.app.get(AccountsService);
    const key = await accounts.issueKey(account.accountId, 'platform', { test: true });
    const api = clientFor(t, key);
    await api.get('/v1/properties').expect(200);
    await accounts.setSubscriptionStatus(account.accountId, 'inactive');
    try {
      const refused = await api.get('/v1/properties');
      expectProblem(refused, 403, 'subscription_inactive');
      expect(refused.headers['x-test-mode']).toBe('true');
    } finally {
      await accounts.setSubscriptionStatus(account.accountId, 'active');
    }
    await accounts.revokeKey(key.apiKeyId);
    expectProblem(await api.get('/v1/properties'), 401, 'unauthorized');
  });
});

describe('test mode: a rate-limited test key', () => {
  const s = appSuite({
    RATE_LIMIT_PER_SECOND: '1',
    RATE_LIMIT_BURST: '1',
    REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-test-mode-429`,
  });

  it('gets its 429 with X-Test-Mode: true, counted apart from the live key', async () => {
    const account = await createAccount(s.t);
    const key = await s.t.app.get(AccountsService).issueKey(account.accountId, 'platform', { test: true });
    const test = clientFor(s.t, key);
    const answers = await Promise.all([1, 2, 3].map(() => test.get('/v1/properties')));
    const limited = answers.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    expectProblem(limited!, 429, 'rate_limited');
    expect(limited!.headers['x-test-mode']).toBe('true');
    await clientFor(s.t, account).get('/v1/properties').expect(200);
  });
});
