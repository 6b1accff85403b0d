import { closeRedisClient, createRedisClient } from '../../src/platform/redis/redis-factory';
import { ApiClient, TestApp } from '../support/app';
import { ReceiverAuthUpkeep } from '../../src/modules/webhooks/engine/maintenance/receiver-auth-upkeep';
import { consoleSignIn } from '../support/console';
import { expectProblem } from '../support/problem';
import { startTokenEndpoint, TokenEndpoint } from '../support/token-endpoint';
import { redisKeys } from '../support/test-env';
import { sleep, waitUntil } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver';
import { deliveriesOf, publishEvent, subscriptionOf, waitForFinalDeliveries } from '../support/webhooks';
import { createSubscription, hookUrl, subscriptionRow } from '../support/webhooks-api';

/**
 * Receivers behind authentication (issue 42, an extension): custom headers and OAuth2 client-credentials
 * tokens, end to end against a loopback receiver and a token endpoint this file starts; two workers
 * share one token through Redis. Secrets are never read back: reads redact them, the row and Redis keep
 * them sealed, the delivery log never shows them.
 */
const ENV = webhookTestEnv('rauth', { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });
const SECRET_VALUE = 'sk_live_very-secret-value-42';

describe('receivers behind authentication (issue 42)', () => {
  let t: TestApp;
  let api: ApiClient;
  let accountId: string;
  const engine = useWebhookEngine(ENV);
  const tokenEndpoints: TokenEndpoint[] = [];
  beforeAll(
    () =>
      ({
        t,
        api,
        account: { accountId },
      } = engine.started() as never),
  );
  afterAll(async () => Promise.all(tokenEndpoints.map((endpoint) => endpoint.close())));

  async function tokenEndpoint(): Promise<TokenEndpoint> {
    const endpoint = await startTokenEndpoint();
    tokenEndpoints.push(endpoint);
    return endpoint;
  }

  /** One test delivery through the API, as the receiver got it. */
  async function testDelivery(r: WebhookReceiver, subscriptionId: string): Promise<ReceivedRequest> {
    const { deliveryId } = (await api.post(`/v1/webhooks/${subscriptionId}/test`).send({ eventName: 'property.create' }).expect(202)).body;
    const [request] = await r.waitFor(1, 15_000, (q) => q.headers['webhook-id'] === deliveryId);
    return request;
  }

  function pointers(res: { body: unknown; status: number }): string[] {
    return expectProblem(res as never, 400, 'validationFailed').errors.map((e: { pointer: string }) => e.pointer);
  }

  describe('headers: validation', () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v']));
    it.each([
      ['more than 10 headers', many, 'at most 10'],
      ['a name with a space', { 'X Key': 'v' }, '"X Key"'],
      ['a name starting with -', { '-X': 'v' }, '"-X"'],
      ['a name of 65 characters', { ['X'.repeat(65)]: 'v' }, 'longer than 64'],
      ['a value of 1,025 characters', { 'X-Key': 'v'.repeat(1025) }, '"X-Key"'],
      ['a value with a line break', { 'X-Key': 'a\r\nX-Injected: 1' }, '"X-Key"'],
      ['a non-ASCII value', { 'X-Key': 'café' }, '"X-Key"'],
      ['a number value', { 'X-Key': 5 }, '"X-Key"'],
      ['a name given twice, case aside', { 'X-Key': 'a', 'x-key': 'b' }, '"x-key"'],
      ['content-type', { 'Content-Type': 'text/plain' }, '"Content-Type"'],
      ['content-length', { 'content-length': '5' }, '"content-length"'],
      ['host', { Host: 'example.com' }, '"Host"'],
      ['connection', { Connection: 'close' }, '"Connection"'],
      ['transfer-encoding', { 'Transfer-Encoding': 'chunked' }, '"Transfer-Encoding"'],
      ['user-agent', { 'User-Agent': 'me' }, '"User-Agent"'],
      ['traceparent', { traceparent: 'x' }, '"traceparent"'],
      ['x-test-mode', { 'X-Test-Mode': 'true' }, '"X-Test-Mode"'],
      ['a webhook-* name', { 'Webhook-Signature': 'v1,forged' }, '"Webhook-Signature"'],
      ['a list', ['X-Key'], 'must be an object'],
      ['a string', 'X-Key: v', 'must be an object'],
    ])('refuses %s on create and PATCH: 400 validationFailed naming the header', async (_, headers, named) => {
      const created = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], headers });
      expect(pointers(created)).toEqual(['#/headers']);
      expect(JSON.stringify(created.body.errors)).toContain(named.replace(/"/g, '\\"'));
      const sub = await createSubscription(api);
      const patched = await api.patch(`/v1/webhooks/${sub.id}`).send({ headers });
      expect(pointers(patched)).toEqual(['#/headers']);
    });

    it('accepts 10 headers at the bounds, names keeping their case', async () => {
      const headers = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`X-H${i}`, '~ !'.repeat(3)]));
      headers[`A${'b_-'.repeat(21)}`] = 'v'.repeat(1024);
      const sub = await createSubscription(api, { headers });
      expect(Object.keys(sub.headers)).toEqual(Object.keys(headers));
    });
  });

  describe('malformed input (the new fields fuzzed, as the malformed-input suite does the documented example)', () => {
    const BAD: Array<[string, unknown]> = [
      ['null', null],
      ['0', 0],
      ['-1', -1],
      ['1e308', 1e308],
      ['true', true],
      ['a list', []],
      ['an object', {}],
      ['empty', ''],
      ['20,000 characters', 'x'.repeat(20_000)],
      ['NUL', '\u0000'],
      ['a lone surrogate', '\ud800'],
    ];
    const oauth2 = {
      tokenUrl: 'https://localhost/token',
      clientId: 'c',
      clientSecret: 's',
      scope: 'a',
      audience: 'b',
      authMethod: 'clientSecretPost',
    };
    const mtls = { clientCertificate: 'x', clientKey: 'y', serverCaCertificate: 'z' };
    const variants: Array<[string, Record<string, unknown>]> = [];
    for (const [name, value] of BAD) {
      for (const option of ['headers', 'oauth2', 'mtls']) variants.push([`${option} = ${name}`, { [option]: value }]);
      variants.push([`headers.X-Key = ${name}`, { headers: { 'X-Key': value } }]);
      for (const field of Object.keys(oauth2)) variants.push([`oauth2.${field} = ${name}`, { oauth2: { ...oauth2, [field]: value } }]);
      for (const field of Object.keys(mtls)) variants.push([`mtls.${field} = ${name}`, { mtls: { ...mtls, [field]: value } }]);
    }
    variants.push(
      ['oauth2 + unknown field', { oauth2: { ...oauth2, extra: 1 } }],
      ['mtls + unknown field', { mtls: { ...mtls, extra: 1 } }],
    );

    it(`answers each of ${variants.length} variants on create and PATCH with a problem document, never a 500`, async () => {
      const sub = await createSubscription(api);
      const wrong: string[] = [];
      for (const [name, fields] of variants) {
        for (const res of [
          await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], ...fields }),
          await api.patch(`/v1/webhooks/${sub.id}`).send(fields),
        ]) {
          const ok =
            res.status < 300 ||
            (res.status >= 400 && res.status < 500 && res.headers['content-type']?.startsWith('application/problem+json'));
          if (!ok) wrong.push(`${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  });

  it('sends the headers with every attempt and test delivery, never shows their values, keeps them sealed', async () => {
    const r = await engine.receiver();
    const sub = await createSubscription(api, {
      url: `${r.url}/h`,
      eventFilters: ['property.create'],
      headers: { 'X-Api-Key': SECRET_VALUE, Tenant: 'a' },
    });
    // Every read: names as given, values redacted.
    expect(sub.headers).toEqual({ 'X-Api-Key': '[redacted]', Tenant: '[redacted]' });
    expect(JSON.stringify(sub)).not.toContain(SECRET_VALUE);
    expect((await subscriptionOf(api, sub.id)).headers).toEqual({ 'X-Api-Key': '[redacted]', Tenant: '[redacted]' });
    const patched = (await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: true }).expect(200)).body;
    expect(patched.headers).toEqual({ 'X-Api-Key': '[redacted]', Tenant: '[redacted]' });
    // At rest: sealed.
    const row = await subscriptionRow(engine.started().db, sub.id);
    expect(JSON.stringify(row)).not.toContain(SECRET_VALUE);
    expect(row.receiver_auth.headers.names).toEqual(['X-Api-Key', 'Tenant']);

    // An event delivery, its first attempt refused then retried: each attempt carries them.
    r.enqueue({ status: 500 });
    await publishEvent(t, accountId, 'property.create');
    const received = await r.waitFor(2, 15_000);
    for (const request of received) expect(request.headers).toMatchObject({ 'x-api-key': SECRET_VALUE, tenant: 'a' });
    // A test delivery too.
    expect((await testDelivery(r, sub.id)).headers).toMatchObject({ 'x-api-key': SECRET_VALUE, tenant: 'a' });
    // The delivery log never shows a value.
    const log = await waitForFinalDeliveries(api, sub.id, 2, 15_000);
    expect(JSON.stringify(log)).not.toContain(SECRET_VALUE);
  });

  it('PATCH headers replaces the whole set; null removes it (absent on reads, no longer sent)', async () => {
    const r = await engine.receiver();
    const sub = await createSubscription(api, {
      url: `${r.url}/p`,
      eventFilters: ['property.create'],
      headers: { 'X-One': '1', 'X-Two': '2' },
    });
    const replaced = (
      await api
        .patch(`/v1/webhooks/${sub.id}`)
        .send({ headers: { 'X-Three': '3' } })
        .expect(200)
    ).body;
    expect(replaced.headers).toEqual({ 'X-Three': '[redacted]' });
    const sent = await testDelivery(r, sub.id);
    expect(sent.headers['x-three']).toBe('3');
    expect(sent.headers).not.toHaveProperty('x-one');

    const removed = (await api.patch(`/v1/webhooks/${sub.id}`).send({ headers: null }).expect(200)).body;
    expect(removed).not.toHaveProperty('headers');
    expect(await subscriptionOf(api, sub.id)).not.toHaveProperty('headers');
    expect((await testDelivery(r, sub.id)).headers).not.toHaveProperty('x-three');
  });

  describe('oauth2', () => {
    it.each([
      ['no clientSecret', { clientId: 'c' }, '#/oauth2/clientSecret'],
      ['an empty clientId', { clientId: '', clientSecret: 's' }, '#/oauth2/clientId'],
      ['an unknown authMethod', { clientId: 'c', clientSecret: 's', authMethod: 'privateKeyJwt' }, '#/oauth2/authMethod'],
      ['an unknown field', { clientId: 'c', clientSecret: 's', grantType: 'password' }, '#/oauth2/grantType'],
    ])('refuses %s: 400 naming the field', async (_, fields, pointer) => {
      const oauth2 = { tokenUrl: 'https://localhost/token', ...fields };
      const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], oauth2 });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
    });

    it.each([
      ['not a URL', 'not a url'],
      ['ftp', 'ftp://localhost/token'],
    ])('refuses a tokenUrl that breaks the url rules (%s) on create and PATCH', async (_, tokenUrl) => {
      const oauth2 = { tokenUrl, clientId: 'c', clientSecret: 's' };
      const created = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], oauth2 });
      expect(expectProblem(created, 400, 'invalidWebhookUrl').errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '#/oauth2/tokenUrl',
      ]);
      const sub = await createSubscription(api);
      const patched = await api.patch(`/v1/webhooks/${sub.id}`).send({ oauth2 });
      expect(expectProblem(patched, 400, 'invalidWebhookUrl').errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '#/oauth2/tokenUrl',
      ]);
    });

    it('refuses an Authorization header beside oauth2', async () => {
      const oauth2 = { tokenUrl: 'https://localhost/token', clientId: 'c', clientSecret: 's' };
      const res = await api
        .post('/v1/webhooks')
        .send({ url: hookUrl(), eventFilters: ['*'], oauth2, headers: { Authorization: 'Basic x' } });
      expect(pointers(res)).toEqual(['#/headers']);
    });

    it('one token for many deliveries across two workers; reads never show the secret; the token sealed in Redis', async () => {
      await engine.worker();
      const endpoint = await tokenEndpoint();
      const r = await engine.receiver();
      const oauth2 = {
        tokenUrl: endpoint.url,
        clientId: 'client:1',
        clientSecret: SECRET_VALUE,
        scope: 'hooks.write',
        audience: 'https://api.example',
      };
      const sub = await createSubscription(api, { url: `${r.url}/o`, eventFilters: ['property.update'], oauth2 });
      expect(sub.oauth2).toEqual({
        tokenUrl: endpoint.url,
        clientId: 'client:1',
        scope: 'hooks.write',
        audience: 'https://api.example',
        authMethod: 'clientSecretBasic',
      });
      expect(JSON.stringify(await subscriptionOf(api, sub.id))).not.toContain(SECRET_VALUE);
      // No token before the first attempt that needs one.
      expect(endpoint.requests).toHaveLength(0);

      for (let i = 0; i < 20; i++) await publishEvent(t, accountId, 'property.update');
      const received = await r.waitFor(20, 30_000);
      expect(received.every((q) => q.headers.authorization === 'Bearer tok-1')).toBe(true);
      expect(endpoint.requests).toHaveLength(1);
      const [request] = endpoint.requests;
      expect(request.form).toEqual({ grant_type: 'client_credentials', scope: 'hooks.write', audience: 'https://api.example' });
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const basic = Buffer.from(`${encodeURIComponent('client:1')}:${SECRET_VALUE}`).toString('base64');
      expect(request.headers.authorization).toBe(`Basic ${basic}`);

      // The cached token is sealed in Redis (on whichever node holds its slot in the Cluster pass).
      const target = t.config.redis;
      const keys = (await redisKeys(target, `${ENV.REDIS_PREFIX}:rtoken:{${sub.id}:*`)).filter((key) => !key.includes(':lock'));
      expect(keys).toHaveLength(1);
      const redis = createRedisClient(target, { maxRetriesPerRequest: null, enableOfflineQueue: true });
      try {
        const cached = await redis.get(keys[0]);
        expect(cached).toMatch(/^v1\./);
        expect(cached).not.toContain('tok-1');
      } finally {
        await closeRedisClient(redis);
      }
      expect(JSON.stringify(await deliveriesOf(api, sub.id))).not.toContain('tok-1');
    });

    it('clientSecretPost sends the credentials as form fields; a test delivery carries the token', async () => {
      const endpoint = await tokenEndpoint();
      const r = await engine.receiver();
      const oauth2 = { tokenUrl: endpoint.url, clientId: 'c2', clientSecret: 's2', authMethod: 'clientSecretPost' };
      const sub = await createSubscription(api, { url: `${r.url}/post`, eventFilters: ['property.update'], oauth2 });
      expect((await testDelivery(r, sub.id)).headers.authorization).toBe('Bearer tok-1');
      expect(endpoint.requests[0].form).toEqual({ grant_type: 'client_credentials', client_id: 'c2', client_secret: 's2' });
      expect(endpoint.requests[0].headers).not.toHaveProperty('authorization');
    });

    it('refreshes before expiry: expires_in 1 is reused for 0.9 s, then a new token is asked for', async () => {
      const endpoint = await tokenEndpoint();
      endpoint.respondWith((n) => ({ body: { access_token: `short-${n}`, expires_in: 1 } }));
      const r = await engine.receiver();
      const sub = await createSubscription(api, {
        url: `${r.url}/refresh`,
        eventFilters: ['property.update'],
        oauth2: { tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      });
      expect((await testDelivery(r, sub.id)).headers.authorization).toBe('Bearer short-1');
      await sleep(1_000);
      expect((await testDelivery(r, sub.id)).headers.authorization).toBe('Bearer short-2');
      expect(endpoint.requests).toHaveLength(2);
    });

    it("a receiver's 401 drops the token: the retry carries a new one", async () => {
      const endpoint = await tokenEndpoint();
      const r = await engine.receiver();
      r.enqueue({ status: 401 });
      const sub = await createSubscription(api, {
        url: `${r.url}/401`,
        eventFilters: ['property.update'],
        oauth2: { tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      });
      await publishEvent(t, accountId, 'property.update');
      const [first, second] = await r.waitFor(2, 15_000);
      expect(first.headers.authorization).toBe('Bearer tok-1');
      expect(second.headers.authorization).toBe('Bearer tok-2');
      const [delivery] = await waitForFinalDeliveries(api, sub.id, 1, 15_000);
      expect(delivery.status).toBe('delivered');
    });

    it('a failing token endpoint fails the attempt (tokenRequestFailed, its status in the message), retried; its body never stored', async () => {
      const endpoint = await tokenEndpoint();
      endpoint.enqueue({ status: 500, body: 'idp-internal-detail-xyz' }, { status: 200, body: { token_type: 'Bearer' } });
      const r = await engine.receiver();
      const sub = await createSubscription(api, {
        url: `${r.url}/down`,
        eventFilters: ['property.update'],
        oauth2: { tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      });
      await publishEvent(t, accountId, 'property.update');
      const [received] = await r.waitFor(1, 15_000);
      expect(received.headers.authorization).toBe('Bearer tok-3');
      const [delivery] = await waitForFinalDeliveries(api, sub.id, 1, 15_000);
      const full = (await api.get(`/v1/webhooks/${sub.id}/deliveries/${delivery.id}`).expect(200)).body;
      expect(full.status).toBe('delivered');
      const [a1, a2] = full.attempts;
      expect(a1).toMatchObject({ errorClass: 'tokenRequestFailed', responseCode: null, errorMessage: expect.stringContaining('HTTP 500') });
      expect(a2).toMatchObject({ errorClass: 'tokenRequestFailed', errorMessage: expect.stringContaining('access_token') });
      expect(JSON.stringify(full)).not.toContain('idp-internal-detail-xyz');
    });

    it('a token endpoint that is down is retried on the usual schedule', async () => {
      const endpoint = await tokenEndpoint();
      const url = endpoint.url;
      await endpoint.close();
      const sub = await createSubscription(api, {
        url: `${(await engine.receiver()).url}/gone`,
        eventFilters: ['property.update'],
        maxRetries: 1,
        oauth2: { tokenUrl: url, clientId: 'c', clientSecret: 's' },
      });
      await publishEvent(t, accountId, 'property.update');
      const [delivery] = await waitForFinalDeliveries(api, sub.id, 1, 15_000);
      const full = (await api.get(`/v1/webhooks/${sub.id}/deliveries/${delivery.id}`).expect(200)).body;
      expect(full.status).toBe('failed_permanent');
      expect(full.attempts).toHaveLength(2);
      for (const attempt of full.attempts)
        expect(attempt).toMatchObject({ errorClass: 'tokenRequestFailed', errorMessage: expect.stringContaining('ECONNREFUSED') });
    });

    it('the console shows the header names (never a value), the token endpoint and its last error in words', async () => {
      const endpoint = await tokenEndpoint();
      endpoint.enqueue({ status: 503 });
      const r = await engine.receiver();
      const sub = await createSubscription(api, {
        url: `${r.url}/console`,
        eventFilters: ['property.update'],
        headers: { 'X-Api-Key': SECRET_VALUE },
        oauth2: { tokenUrl: endpoint.url, clientId: 'console-client', clientSecret: SECRET_VALUE },
      });
      await testDelivery(r, sub.id);
      const session = await consoleSignIn(t, accountId);
      const page = (await session.get(`/console/webhooks/${sub.id}`).expect(200)).text;
      expect(page).toContain('X-Api-Key');
      expect(page).toContain('console-client');
      expect(page).toContain('token endpoint answered HTTP 503');
      expect(page).not.toContain(SECRET_VALUE);
    });

    it("the secrets' upkeep seals receiver credentials not sealed with the current key again", async () => {
      const endpoint = await tokenEndpoint();
      const r = await engine.receiver();
      const sub = await createSubscription(api, {
        url: `${r.url}/upkeep`,
        eventFilters: ['property.update'],
        oauth2: { tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      });
      // As a value stored before encryption reads (43 base64url characters, opened as it is).
      const plain = 'P'.repeat(43);
      const { db, worker } = engine.started();
      await db.query(
        `UPDATE webhook_subscriptions SET receiver_auth = jsonb_set(receiver_auth, '{oauth2,clientSecret}', to_jsonb($2::text)) WHERE id = $1`,
        [sub.id, plain],
      );
      const { resealed } = await worker.ctx.get(ReceiverAuthUpkeep).run();
      expect(resealed).toBeGreaterThanOrEqual(1);
      const row = await subscriptionRow(db, sub.id);
      expect(row.receiver_auth.oauth2.clientSecret).toMatch(/^v1\./);
      await testDelivery(r, sub.id);
      expect(endpoint.requests[0].headers.authorization).toBe(`Basic ${Buffer.from(`c:${plain}`).toString('base64')}`);
    });

    it('PATCH oauth2 replaces it (a new token); null removes it', async () => {
      const endpoint = await tokenEndpoint();
      const r = await engine.receiver();
      const sub = await createSubscription(api, {
        url: `${r.url}/swap`,
        eventFilters: ['property.update'],
        oauth2: { tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      });
      expect((await testDelivery(r, sub.id)).headers.authorization).toBe('Bearer tok-1');
      const patched = (
        await api
          .patch(`/v1/webhooks/${sub.id}`)
          .send({ oauth2: { tokenUrl: endpoint.url, clientId: 'c3', clientSecret: 's3' } })
          .expect(200)
      ).body;
      expect(patched.oauth2).toEqual({ tokenUrl: endpoint.url, clientId: 'c3', authMethod: 'clientSecretBasic' });
      expect((await testDelivery(r, sub.id)).headers.authorization).toBe('Bearer tok-2');
      const removed = (await api.patch(`/v1/webhooks/${sub.id}`).send({ oauth2: null }).expect(200)).body;
      expect(removed).not.toHaveProperty('oauth2');
      expect((await testDelivery(r, sub.id)).headers).not.toHaveProperty('authorization');
      await waitUntil(async () => endpoint.requests.length === 2, 1_000, 'two token requests');
    });
  });
});
