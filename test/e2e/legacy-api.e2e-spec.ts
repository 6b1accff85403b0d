import request from 'supertest';
import { DataSource } from 'typeorm';
import { cliJson, runCli } from '../support/cli';
import { startApp, TestApp } from '../support/app';
import { createLegacyAccount, expectDeprecationHeaders } from '../support/legacy';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import { validProperty } from '../support/properties';

/** The legacy API's acknowledgement side (spec 9, docs/legacy.md): keys, headers, batch intake, the legacy webhook. */
describe('legacy API', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createLegacyAccount>>;

  beforeAll(async () => {
    t = await startApp({ ALLOW_PRIVATE_URLS: 'true' });
    a = await createLegacyAccount(t);
  });
  afterAll(() => t.close());

  const record = (n: number, extra: Record<string, unknown> = {}) => ({
    clientRequestId: `rec-${n}`,
    entity: 'property',
    action: 'create',
    data: validProperty({ sourceId: `legacy-prop-${n}` }),
    ...extra,
  });

  describe('keys', () => {
    it('refuses a Platform key with 403 legacyKeyRequired, with the deprecation headers and no rate-limit headers', async () => {
      const res = await a.platform.post('/legacy/batch').send({ records: [record(1)] });
      expectProblem(res, 403, 'legacyKeyRequired', '/legacy/batch');
      expectDeprecationHeaders(res);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('lets a legacy key call the Platform API too', async () => {
      const res = await a.legacy.get('/v1/properties').expect(200);
      expect(res.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
      expect(res.headers.deprecation).toBeUndefined();
    });
  });

  describe('deprecation headers on every legacy response', () => {
    it.each([
      ['no key (401)', () => t.http.get('/legacy/webhook'), 401, 'unauthorized'],
      ['unknown route (404)', () => a.legacy.get('/legacy/nothing'), 404, 'notFound'],
      ['unknown batch (404)', () => a.legacy.get('/legacy/batch/lbat_00000000000000000000000000'), 404, 'notFound'],
      ['malformed batch (400)', () => a.legacy.post('/legacy/batch').send({ records: [] }), 400, 'validationFailed'],
      [
        'malformed JSON (400)',
        () => a.legacy.post('/legacy/batch').set('content-type', 'application/json').send('{'),
        400,
        'malformedJson',
      ],
    ])('%s', async (_name, send, status, code) => {
      const res = await send();
      expectProblem(res, status as number, code as string);
      expectDeprecationHeaders(res);
    });

    it("on 429, the limit being shared with the key's Platform calls", async () => {
      const limited = await startApp({
        RATE_LIMIT_PER_SECOND: '1',
        RATE_LIMIT_BURST: '1',
        RATE_LIMIT_WINDOW_SECONDS: '3600',
        REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-legacy-limits`,
      });
      try {
        const c = await createLegacyAccount(limited);
        await c.legacy.get('/v1/properties').expect(200);
        const res = await c.legacy.get('/legacy/webhook');
        expectProblem(res, 429, 'rate_limited');
        expectDeprecationHeaders(res);
      } finally {
        await limited.close();
      }
    }, 60_000);

    it('on successes, with the rate-limit headers of the key', async () => {
      const res = await a.legacy
        .post('/legacy/batch')
        .send({ records: [record(100)] })
        .expect(202);
      expectDeprecationHeaders(res);
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });
  });

  describe('POST /legacy/batch', () => {
    it('acknowledges a well-formed batch with 202 {batchId, accepted} and stores it', async () => {
      const records = Array.from({ length: 20 }, (_, i) => record(i));
      const res = await a.legacy.post('/legacy/batch').send({ records }).expect(202);
      expect(res.body).toEqual({ batchId: expect.stringMatching(/^lbat_/), accepted: 20 });
      const status = await a.legacy.get(`/legacy/batch/${res.body.batchId}`).expect(200);
      expect(status.body).toEqual(
        expect.objectContaining({ batchId: res.body.batchId, accepted: 20, records: expect.any(Array), createdAt: expect.any(String) }),
      );
      expect(status.body.records.map((r: { clientRequestId: string }) => r.clientRequestId)).toEqual(records.map((r) => r.clientRequestId));
    });

    it.each([
      ['no records', {}, 'validationFailed', '#/records'],
      ['empty records', { records: [] }, 'validationFailed', '#/records'],
      ['21 records', { records: Array.from({ length: 21 }, (_, i) => record(i)) }, 'validationFailed', '#/records'],
      ['an unknown batch field', { records: [record(1)], extra: 1 }, 'objectStrict', '#/extra'],
      ['an unknown record field', { records: [record(1, { colour: 'red' })] }, 'objectStrict', '#/records/0/colour'],
      ['a bad entity', { records: [record(1, { entity: 'house' })] }, 'validationFailed', '#/records/0/entity'],
      ['a bad action', { records: [record(1, { action: 'upsert' })] }, 'validationFailed', '#/records/0/action'],
      ['a create without data', { records: [record(1, { data: undefined })] }, 'validationFailed', '#/records/0/data'],
      [
        'an update without entityId',
        { records: [record(1, { action: 'update', data: undefined, changes: {} })] },
        'validationFailed',
        '#/records/0/entityId',
      ],
      ['a delete with data', { records: [record(1, { action: 'delete', entityId: 'prop_x' })] }, 'validationFailed', '#/records/0/data'],
      [
        'a reminder update',
        { records: [{ clientRequestId: 'r', entity: 'reminder', action: 'update', entityId: 'rem_x', changes: {} }] },
        'validationFailed',
        '#/records/0/action',
      ],
      ['a repeated clientRequestId', { records: [record(1), record(1)] }, 'validationFailed', '#/records/1/clientRequestId'],
      [
        'a long clientRequestId',
        { records: [record(1, { clientRequestId: 'x'.repeat(101) })] },
        'validationFailed',
        '#/records/0/clientRequestId',
      ],
    ])('refuses at once a batch with %s (400)', async (_name, body, code, pointer) => {
      const res = await a.legacy.post('/legacy/batch').send(body);
      const problem = expectProblem(res, 400, code);
      expect(problem.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
      expectDeprecationHeaders(res);
    });

    it("hides another account's batch (404)", async () => {
      const other = await createLegacyAccount(t);
      const res = await a.legacy
        .post('/legacy/batch')
        .send({ records: [record(200)] })
        .expect(202);
      expectProblem(await other.legacy.get(`/legacy/batch/${res.body.batchId}`), 404, 'notFound');
    });
  });

  describe('the legacy webhook', () => {
    it('is set by PUT, read by GET, removed by DELETE, and never listed in /v1/webhooks', async () => {
      const b = await createLegacyAccount(t);
      expectProblem(await b.legacy.get('/legacy/webhook'), 404, 'notFound');
      const put = await b.legacy.put('/legacy/webhook').send({ url: 'http://127.0.0.1:9/legacy' }).expect(200);
      expect(put.body).toEqual({
        url: 'http://127.0.0.1:9/legacy',
        enabled: true,
        maxRetries: 5,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expectDeprecationHeaders(put);
      const again = await b.legacy.put('/legacy/webhook').send({ url: 'http://127.0.0.1:9/other' }).expect(200);
      expect(again.body.url).toBe('http://127.0.0.1:9/other');
      expect(again.body.createdAt).toBe(put.body.createdAt);
      expect((await b.legacy.get('/legacy/webhook').expect(200)).body).toEqual(again.body);
      expect((await b.platform.get('/v1/webhooks').expect(200)).body.data).toEqual([]);
      // A Platform subscription may share the legacy webhook's URL (the migration promotes one to it).
      await b.platform
        .post('/v1/webhooks')
        .send({ url: 'http://127.0.0.1:9/other', eventFilters: ['*'] })
        .expect(201);
      expect((await b.legacy.get('/legacy/webhook/deliveries').expect(200)).body).toEqual({ data: [], nextCursor: null, hasMore: false });
      await b.legacy.delete('/legacy/webhook').expect(204);
      expectProblem(await b.legacy.delete('/legacy/webhook'), 404, 'notFound');
      expectProblem(await b.legacy.get('/legacy/webhook/deliveries'), 404, 'notFound');
      expect((await b.platform.get('/v1/webhooks').expect(200)).body.data).toHaveLength(1);
    });

    it('takes the URL rules of Platform subscriptions', async () => {
      const strict = await startApp();
      try {
        const c = await createLegacyAccount(strict);
        const res = await c.legacy.put('/legacy/webhook').send({ url: 'http://hooks.example.com/x' });
        expect(expectProblem(res, 400, 'invalidWebhookUrl').detail).toMatch(/^Webhook url/);
        expectProblem(await c.legacy.put('/legacy/webhook').send({ url: 'https://x.example.com', extra: 1 }), 400, 'objectStrict');
      } finally {
        await strict.close();
      }
    }, 60_000);
  });

  describe('after the sunset (LEGACY_SUNSET_AT)', () => {
    it('answers 410 legacyApiRetired on every legacy route, with the headers; the Platform API goes on', async () => {
      const retired = await startApp({ LEGACY_SUNSET_AT: '2020-01-01T00:00:00Z' });
      try {
        const c = await createLegacyAccount(retired);
        for (const res of [
          await c.legacy.post('/legacy/batch').send({ records: [record(1)] }),
          await c.legacy.get('/legacy/webhook'),
          await request(retired.app.getHttpServer()).get('/legacy/batch/lbat_x'),
          await c.legacy.get('/legacy/unknown'),
        ]) {
          expectProblem(res, 410, 'legacyApiRetired');
          expectDeprecationHeaders(res, {
            deprecation: '@1791504000',
            sunset: 'Wed, 01 Jan 2020 00:00:00 GMT',
            link: '<https://docs.property-ops.example/docs/legacy>; rel="deprecation"',
          });
        }
        await c.legacy.get('/v1/properties').expect(200);
      } finally {
        await retired.close();
      }
    }, 60_000);
  });

  describe('CLI accounts:legacy-usage', () => {
    it('says whether a legacy key of the account was used in the last 30 days', async () => {
      const c = await createLegacyAccount(t);
      expect(await cliJson(['accounts:legacy-usage', '--account', c.account.accountId])).toEqual({
        accountId: c.account.accountId,
        usedLegacyKeyInLast30Days: false,
        lastLegacyUseAt: null,
        liveLegacyKeys: 1,
      });
      // A Platform call with the Platform key does not count; a call with the legacy key (any route) does.
      await c.platform.get('/v1/properties').expect(200);
      await c.legacy.get('/v1/properties').expect(200);
      const db = t.app.get(DataSource);
      await waitUntil(
        async () => (await db.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [c.legacyKey.apiKeyId]))[0].last_used_at,
        10_000,
        'last_used_at of the legacy key',
      );
      const used = await cliJson<Record<string, unknown>>(['accounts:legacy-usage', '--account', c.account.accountId]);
      expect(used).toEqual(expect.objectContaining({ usedLegacyKeyInLast30Days: true, lastLegacyUseAt: expect.any(String) }));
      // A use 31 days ago is too old.
      await db.query(`UPDATE api_keys SET last_used_at = now() - interval '31 days' WHERE id = $1`, [c.legacyKey.apiKeyId]);
      const old = await cliJson<Record<string, unknown>>(['accounts:legacy-usage', '--account', c.account.accountId]);
      expect(old.usedLegacyKeyInLast30Days).toBe(false);
    }, 60_000);

    it('fails for an unknown account or without --account', async () => {
      const unknown = await runCli(['accounts:legacy-usage', '--account', 'acct_01AAAAAAAAAAAAAAAAAAAAAAAA']);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/not found/i);
      expect((await runCli(['accounts:legacy-usage'])).stderr).toMatch(/--account is required/);
    }, 60_000);
  });
});
