import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { newId } from '../../src/platform/ids/ids';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';

/**
 * The webhook subscriptions API (spec 2.7, 2.8, 3.4, 4.8). No worker runs here: test deliveries stay
 * pending in this file's own Redis prefix, where no other file's worker can take them.
 */
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-webhooks-api`;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const DELIVERY_ID = /^whd_[0-9A-Z]{26}$/;

let seq = 0;
/** A distinct URL that passes the policy with ALLOW_PRIVATE_URLS=true (localhost resolves through /etc/hosts). */
function hookUrl(): string {
  seq += 1;
  return `https://localhost/hooks/${Date.now()}-${seq}`;
}

describe('webhook subscriptions API', () => {
  let t: TestApp;
  let api: ApiClient;
  let other: ApiClient;
  let db: DataSource;

  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX });
    api = clientFor(t, await createAccount(t));
    other = clientFor(t, await createAccount(t));
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown> = {}, client = api) {
    const res = await client
      .post('/v1/webhooks')
      .send({ url: hookUrl(), eventFilters: ['*'], ...body })
      .expect(201);
    return res.body as Record<string, any>;
  }

  async function row(id: string): Promise<Record<string, any>> {
    const [found] = await db.query(`SELECT * FROM webhook_subscriptions WHERE id = $1`, [id]);
    return found;
  }

  describe('POST /v1/webhooks', () => {
    it('creates a subscription and shows its secret once, with the defaults', async () => {
      const url = hookUrl();
      const res = await api.post('/v1/webhooks').send({ url, eventFilters: ['jobRequest.*', 'property.create'] }).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^sub_[0-9A-Z]{26}$/),
        url,
        eventFilters: ['jobRequest.*', 'property.create'],
        enabled: true,
        maxRetries: 5,
        createdAt: expect.any(String),
        signingSecret: expect.stringMatching(SECRET),
      });
      expect(Buffer.from(res.body.signingSecret, 'base64url')).toHaveLength(32);
      expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
      const stored = await row(res.body.id);
      expect(stored.signing_secret).toBe(res.body.signingSecret);
      expect(stored.consecutive_failures).toBe(0);
    });

    it('never shows secrets again: list and patch', async () => {
      const created = await create();
      const list = await api.get('/v1/webhooks').expect(200);
      expect(list.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
      const listed = list.body.data.find((s: { id: string }) => s.id === created.id);
      const { signingSecret, ...withoutSecret } = created;
      expect(signingSecret).toMatch(SECRET);
      expect(listed).toEqual(withoutSecret);
      expect(JSON.stringify(list.body)).not.toContain(signingSecret);
      const patched = await api.patch(`/v1/webhooks/${created.id}`).send({ enabled: true }).expect(200);
      expect(patched.body).toEqual(withoutSecret);
    });

    it('lists an account\'s subscriptions only, in creation order', async () => {
      const account = clientFor(t, await createAccount(t));
      const a = await create({}, account);
      const b = await create({}, account);
      const list = await account.get('/v1/webhooks').expect(200);
      expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
      const others = await other.get('/v1/webhooks').expect(200);
      expect(others.body.data.map((s: { id: string }) => s.id)).not.toContain(a.id);
    });

    it.each([0, 10])('accepts maxRetries %d (bound)', async (maxRetries) => {
      expect((await create({ maxRetries })).maxRetries).toBe(maxRetries);
    });

    it.each([-1, 11, 1.5, '5', null, true])('rejects maxRetries %p', async (maxRetries) => {
      const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], maxRetries });
      const problem = expectProblem(res, 400, 'validationFailed', '/v1/webhooks');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/maxRetries' })]);
    });

    it('requires url and eventFilters', async () => {
      const res = await api.post('/v1/webhooks').send({});
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/eventFilters', '#/url']);
      expectProblem(await api.post('/v1/webhooks').send({ url: hookUrl() }), 400, 'validationFailed');
      expectProblem(await api.post('/v1/webhooks').send({ eventFilters: ['*'] }), 400, 'validationFailed');
    });

    it.each([[[]], ['*'], [null], [[1]], [['*', 2]], [{ 0: '*' }]])('rejects eventFilters %j', async (eventFilters) => {
      const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters });
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/eventFilters' })]);
    });

    it.each(['job*', '.x', 'a..b', '**', 'jobRequest', 'jobRequest.c*', '*.create', '', 'a.b '])(
      'rejects the filter %j and names it',
      async (filter) => {
        const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['property.create', filter] });
        const problem = expectProblem(res, 400, 'validationFailed');
        expect(problem.errors).toEqual([{ pointer: '#/eventFilters', detail: expect.stringContaining(JSON.stringify(filter)) }]);
        expect(problem.errors[0].detail).not.toContain('"property.create"');
      },
    );

    it('takes up to 50 filters and removes repeats', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `resource${i}.done`);
      expect((await create({ eventFilters: fifty })).eventFilters).toEqual(fifty);
      const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: [...fifty, 'one.more'] });
      expectProblem(res, 400, 'validationFailed');
      const deduped = await create({ eventFilters: ['jobRequest.*', 'comment.new', 'jobRequest.*'] });
      expect(deduped.eventFilters).toEqual(['jobRequest.*', 'comment.new']);
    });

    it('caps a filter at 100 characters', async () => {
      const atBound = `a.${'b'.repeat(98)}`;
      expect((await create({ eventFilters: [atBound] })).eventFilters).toEqual([atBound]);
      expectProblem(await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: [`${atBound}b`] }), 400, 'validationFailed');
    });

    it.each([[42], [null], [['https://localhost/x']]])('rejects a url that is not a string: %j', async (url) => {
      const problem = expectProblem(await api.post('/v1/webhooks').send({ url, eventFilters: ['*'] }), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/url' })]);
    });

    it('caps the url at 2048 characters', async () => {
      const base = 'https://localhost/';
      const atBound = base + 'x'.repeat(2048 - base.length);
      expect((await create({ url: atBound })).url).toBe(atBound);
      const problem = expectProblem(await api.post('/v1/webhooks').send({ url: `${atBound}y`, eventFilters: ['*'] }), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/url' })]);
    });

    it.each(['not a url', '', 'ftp://localhost/x', 'https://user:pw@localhost/x', '/relative'])('rejects the url %j with a Webhook url detail', async (url) => {
      const problem = expectProblem(await api.post('/v1/webhooks').send({ url, eventFilters: ['*'] }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toMatch(/^Webhook url /);
      expect(problem.errors).toEqual([{ pointer: '#/url', detail: problem.detail }]);
    });

    it('rejects unknown fields, naming each (objectStrict)', async () => {
      const res = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], enabled: true, secret: 'x' });
      const problem = expectProblem(res, 400, 'objectStrict');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/enabled', '#/secret']);
    });

    it('stores the normalised url', async () => {
      const path = `/Case/${Date.now()}`;
      const created = await create({ url: `HTTPS://LocalHost:443${path}?b=1#frag` });
      expect(created.url).toBe(`https://localhost${path}?b=1`);
    });
  });

  describe('one subscription per url', () => {
    it('gives 409 conflict with existingId on a second create, also for the same url spelled differently', async () => {
      const url = hookUrl();
      const first = await create({ url });
      const res = await api.post('/v1/webhooks').send({ url, eventFilters: ['comment.new'] });
      const problem = expectProblem(res, 409, 'conflict');
      expect(problem.existingId).toBe(first.id);
      expect(problem.title).toBe('Conflict');
      const spelled = url.replace('https://localhost/', 'HTTPS://LOCALHOST:443/') + '#x';
      expect(expectProblem(await api.post('/v1/webhooks').send({ url: spelled, eventFilters: ['*'] }), 409, 'conflict').existingId).toBe(first.id);
    });

    it('lets another account use the same url', async () => {
      const url = hookUrl();
      await create({ url });
      await create({ url }, other);
    });

    it('lets exactly one of concurrent creates win', async () => {
      const url = hookUrl();
      const results = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })));
      const won = results.filter((r) => r.status === 201);
      expect(won).toHaveLength(1);
      for (const lost of results.filter((r) => r.status !== 201)) {
        expect(expectProblem(lost, 409, 'conflict').existingId).toBe(won[0].body.id);
      }
    });

    it('gives 409 with existingId when PATCH takes another subscription\'s url; its own url is fine', async () => {
      const a = await create();
      const b = await create();
      const problem = expectProblem(await api.patch(`/v1/webhooks/${b.id}`).send({ url: a.url }), 409, 'conflict');
      expect(problem.existingId).toBe(a.id);
      expect((await row(b.id)).url).toBe(b.url);
      await api.patch(`/v1/webhooks/${b.id}`).send({ url: b.url }).expect(200);
    });
  });

  describe('PATCH /v1/webhooks/{webhookId}', () => {
    it('replaces eventFilters (not a union)', async () => {
      const s = await create({ eventFilters: ['jobRequest.*', 'comment.new'] });
      const res = await api.patch(`/v1/webhooks/${s.id}`).send({ eventFilters: ['property.create'] }).expect(200);
      expect(res.body.eventFilters).toEqual(['property.create']);
      expect((await row(s.id)).event_filters).toEqual(['property.create']);
    });

    it('changes the url and keeps the secret', async () => {
      const s = await create();
      const url = hookUrl();
      const res = await api.patch(`/v1/webhooks/${s.id}`).send({ url }).expect(200);
      expect(res.body).toEqual({ ...s, url, signingSecret: undefined });
      expect(res.body).not.toHaveProperty('signingSecret');
      expect((await row(s.id)).signing_secret).toBe(s.signingSecret);
    });

    it('answers an empty patch with the unchanged subscription', async () => {
      const s = await create({ maxRetries: 3 });
      const { signingSecret: _, ...shape } = s;
      expect((await api.patch(`/v1/webhooks/${s.id}`).send({}).expect(200)).body).toEqual(shape);
    });

    it('disables without a reason, and enabling clears a recorded reason and resets the failure counter', async () => {
      const s = await create();
      const off = await api.patch(`/v1/webhooks/${s.id}`).send({ enabled: false }).expect(200);
      expect(off.body.enabled).toBe(false);
      expect(off.body).not.toHaveProperty('disabledReason');

      await db.query(`UPDATE webhook_subscriptions SET disabled_reason = 'auto_disabled_after_repeated_delivery_failures', consecutive_failures = 10 WHERE id = $1`, [s.id]);
      const listed = (await api.get('/v1/webhooks').expect(200)).body.data.find((x: { id: string }) => x.id === s.id);
      expect(listed).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_after_repeated_delivery_failures' });

      const on = await api.patch(`/v1/webhooks/${s.id}`).send({ enabled: true }).expect(200);
      expect(on.body.enabled).toBe(true);
      expect(on.body).not.toHaveProperty('disabledReason');
      const stored = await row(s.id);
      expect(stored).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    });

    it('keeps the counter when enabled is not sent', async () => {
      const s = await create();
      await db.query(`UPDATE webhook_subscriptions SET consecutive_failures = 4 WHERE id = $1`, [s.id]);
      await api.patch(`/v1/webhooks/${s.id}`).send({ eventFilters: ['a.b'] }).expect(200);
      expect((await row(s.id)).consecutive_failures).toBe(4);
    });

    it.each([
      [{ maxRetries: 3 }, ['#/maxRetries']],
      [{ signingSecret: 'x', enabled: true }, ['#/signingSecret']],
      [{ disabledReason: null }, ['#/disabledReason']],
    ])('rejects fields PATCH does not take: %j', async (body, pointers) => {
      const s = await create();
      const problem = expectProblem(await api.patch(`/v1/webhooks/${s.id}`).send(body), 400, 'objectStrict');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer)).toEqual(pointers);
    });

    it.each([
      [{ url: null }, '#/url'],
      [{ eventFilters: null }, '#/eventFilters'],
      [{ eventFilters: [] }, '#/eventFilters'],
      [{ eventFilters: ['job*'] }, '#/eventFilters'],
      [{ enabled: null }, '#/enabled'],
      [{ enabled: 'true' }, '#/enabled'],
      [{ url: 5 }, '#/url'],
    ])('rejects %j', async (body, pointer) => {
      const s = await create();
      const problem = expectProblem(await api.patch(`/v1/webhooks/${s.id}`).send(body), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer })]);
    });

    it('checks a new url against the URL rules', async () => {
      const s = await create();
      const problem = expectProblem(await api.patch(`/v1/webhooks/${s.id}`).send({ url: 'ftp://localhost/' }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toMatch(/^Webhook url /);
      expect((await row(s.id)).url).toBe(s.url);
    });
  });

  describe('POST /v1/webhooks/{webhookId}/rotateSecret', () => {
    it('issues a new secret and keeps the old one signing for 24 hours', async () => {
      const s = await create();
      const res = await api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200);
      expect(res.body).toEqual({ id: s.id, signingSecret: expect.stringMatching(SECRET), previousSecretExpiresAt: expect.any(String) });
      expect(res.body.signingSecret).not.toBe(s.signingSecret);
      expect(Math.abs(Date.parse(res.body.previousSecretExpiresAt) - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
      const stored = await row(s.id);
      expect(stored.signing_secret).toBe(res.body.signingSecret);
      expect(stored.previous_secret).toBe(s.signingSecret);
      expect(stored.previous_secret_expires_at.toISOString()).toBe(res.body.previousSecretExpiresAt);
    });

    it('a second rotation within 24 hours drops the oldest secret', async () => {
      const s = await create();
      const first = (await api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200)).body;
      const second = (await api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200)).body;
      const stored = await row(s.id);
      expect(stored.signing_secret).toBe(second.signingSecret);
      expect(stored.previous_secret).toBe(first.signingSecret);
      expect([stored.signing_secret, stored.previous_secret]).not.toContain(s.signingSecret);
    });

    it('takes no body fields', async () => {
      const s = await create();
      expectProblem(await api.post(`/v1/webhooks/${s.id}/rotateSecret`).send({ secret: 'mine' }), 400, 'objectStrict');
      expect((await row(s.id)).signing_secret).toBe(s.signingSecret);
    });
  });

  describe('POST /v1/webhooks/{webhookId}/test', () => {
    it('queues a synthetic delivery shown in the log and never in the events feed', async () => {
      const s = await create({ eventFilters: ['property.create'] });
      const res = await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'jobRequest.completed' }).expect(202);
      expect(res.body).toEqual({ deliveryId: expect.stringMatching(DELIVERY_ID), status: 'pending' });

      const log = await api.get(`/v1/webhooks/${s.id}/deliveries`).expect(200);
      expect(log.body).toEqual({
        data: [
          {
            id: res.body.deliveryId,
            eventId: null,
            eventName: 'jobRequest.completed',
            status: 'pending',
            test: true,
            attemptCount: 0,
            firstAttemptAt: null,
            lastAttemptAt: null,
            nextRetryAt: expect.any(String),
            createdAt: expect.any(String),
            attempts: [],
          },
        ],
        nextCursor: null,
        hasMore: false,
      });

      const [delivery] = await db.query(`SELECT * FROM webhook_deliveries WHERE id = $1`, [res.body.deliveryId]);
      expect(delivery.test_payload).toEqual({
        clientRequestId: expect.any(String),
        apiRequestId: res.headers['x-request-id'],
        targetAccountId: (await row(s.id)).account_id,
        createdAt: expect.any(String),
        eventName: 'jobRequest.completed',
        results: [],
        test: true,
      });

      // Enqueued after commit under this file's prefix (job id `<deliveryId>.<attempt>`).
      const queue = t.app.get<Queue>(getQueueToken('webhook-delivery'));
      let job = await queue.getJob(`${res.body.deliveryId}.0`);
      for (let i = 0; !job && i < 50; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        job = await queue.getJob(`${res.body.deliveryId}.0`);
      }
      expect(job?.data).toEqual({ deliveryId: res.body.deliveryId, attempt: 0 });

      const feed = await api.get('/v1/events').expect(200);
      expect(JSON.stringify(feed.body)).not.toContain(res.body.deliveryId);
      expect(feed.body.data.filter((e: { eventName: string }) => e.eventName === 'jobRequest.completed')).toEqual([]);
    });

    it('takes any syntactically valid event name, matching the filters or not', async () => {
      const s = await create({ eventFilters: ['comment.new'] });
      await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'made.up.name9' }).expect(202);
    });

    it('refuses a disabled subscription (409 invalidState) until it is enabled again', async () => {
      const s = await create();
      await api.patch(`/v1/webhooks/${s.id}`).send({ enabled: false }).expect(200);
      const problem = expectProblem(await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }), 409, 'invalidState');
      expect(problem.detail).toMatch(/is disabled; enable it/);
      expect(await db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
      await api.patch(`/v1/webhooks/${s.id}`).send({ enabled: true }).expect(200);
      await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }).expect(202);
    });

    it.each([
      [{}, 'validationFailed'],
      [{ eventName: 'jobRequest.*' }, 'validationFailed'],
      [{ eventName: '*' }, 'validationFailed'],
      [{ eventName: 'job*' }, 'validationFailed'],
      [{ eventName: 'single' }, 'validationFailed'],
      [{ eventName: 'a..b' }, 'validationFailed'],
      [{ eventName: 7 }, 'validationFailed'],
      [{ eventName: `a.${'b'.repeat(99)}` }, 'validationFailed'],
      [{ eventName: 'a.b', results: [] }, 'objectStrict'],
    ])('rejects %j', async (body, code) => {
      const s = await create();
      expectProblem(await api.post(`/v1/webhooks/${s.id}/test`).send(body), 400, code);
      expect(await db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
    });
  });

  describe('GET /v1/webhooks/{webhookId}/deliveries', () => {
    let s: Record<string, any>;
    let ids: string[];
    beforeAll(async () => {
      s = await create();
      ids = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push((await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: `page.n${i}` }).expect(202)).body.deliveryId);
      }
    });

    it('pages newest first; nextCursor is the last row\'s id', async () => {
      const newestFirst = [...ids].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 2, ...(cursor ? { cursor } : {}) };
        const page: { body: { data: Array<{ id: string }>; nextCursor: string | null; hasMore: boolean } } = await api
          .get(`/v1/webhooks/${s.id}/deliveries`)
          .query(query)
          .expect(200);
        seen.push(...page.body.data.map((d) => d.id));
        if (page.body.hasMore) expect(page.body.nextCursor).toBe(page.body.data[page.body.data.length - 1].id);
        else expect(page.body.nextCursor).toBeNull();
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(newestFirst);
    });

    it('defaults to 50 and takes limit 1 and 100', async () => {
      expect((await api.get(`/v1/webhooks/${s.id}/deliveries`).expect(200)).body.data).toHaveLength(5);
      const one = await api.get(`/v1/webhooks/${s.id}/deliveries?limit=1`).expect(200);
      expect(one.body).toMatchObject({ nextCursor: ids[4], hasMore: true });
      await api.get(`/v1/webhooks/${s.id}/deliveries?limit=100`).expect(200);
    });

    it.each(['0', '101', '-1', 'abc', '1.5', ''])('rejects limit=%j', async (limit) => {
      const problem = expectProblem(await api.get(`/v1/webhooks/${s.id}/deliveries`).query({ limit }), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/limit' })]);
    });

    it('rejects unknown query parameters', async () => {
      expectProblem(await api.get(`/v1/webhooks/${s.id}/deliveries?after=${ids[0]}`), 400, 'objectStrict');
    });

    it.each(['garbage', 'whd_01ARZ3NDEKTSV4RRFFQ69G5FAV', "' OR 1=1 --", 'x'.repeat(600)])('rejects the unknown cursor %j', async (cursor) => {
      const res = await api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor });
      const code = cursor.length > 512 ? 'validationFailed' : 'invalidCursor';
      const problem = expectProblem(res, 400, code);
      if (code === 'invalidCursor') expect(problem.detail).toMatch(/restart the listing without it/);
    });

    it('rejects a delivery of another subscription as cursor', async () => {
      const sibling = await create();
      const foreign = (await api.post(`/v1/webhooks/${sibling.id}/test`).send({ eventName: 'x.y' }).expect(202)).body.deliveryId;
      expectProblem(await api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor: foreign }), 400, 'invalidCursor');
      const stranger = await create({}, other);
      const theirs = (await other.post(`/v1/webhooks/${stranger.id}/test`).send({ eventName: 'x.y' }).expect(202)).body.deliveryId;
      expectProblem(await api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor: theirs }), 400, 'invalidCursor');
    });
  });

  describe('DELETE /v1/webhooks/{webhookId}', () => {
    it('deletes the subscription and its deliveries; every route then answers 404', async () => {
      const s = await create();
      const deliveryId = (await api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }).expect(202)).body.deliveryId;
      const res = await api.delete(`/v1/webhooks/${s.id}`).expect(204);
      expect(res.text).toBe('');
      expect(await row(s.id)).toBeUndefined();
      expect(await db.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1`, [deliveryId])).toEqual([]);
      await expectNotFoundEverywhere(api, s.id);
      expect((await api.get('/v1/webhooks').expect(200)).body.data.map((x: { id: string }) => x.id)).not.toContain(s.id);
      // The url is free again.
      await create({ url: s.url });
    });
  });

  describe('other accounts', () => {
    it('answers 404 on every route for another account\'s subscription and changes nothing', async () => {
      const s = await create();
      await expectNotFoundEverywhere(other, s.id);
      const stored = await row(s.id);
      expect(stored).toMatchObject({ url: s.url, signing_secret: s.signingSecret, enabled: true });
      expect(await db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
    });

    it('answers 404 for ids that do not exist', async () => {
      await expectNotFoundEverywhere(api, 'sub_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      await expectNotFoundEverywhere(api, 'nonsense');
    });
  });

  async function expectNotFoundEverywhere(client: ApiClient, id: string) {
    const instance = `/v1/webhooks/${id}`;
    expectProblem(await client.patch(instance).send({ enabled: true }), 404, 'notFound', instance);
    expectProblem(await client.patch(instance).send({ url: hookUrl() }), 404, 'notFound', instance);
    expectProblem(await client.delete(instance), 404, 'notFound', instance);
    expectProblem(await client.post(`${instance}/test`).send({ eventName: 'a.b' }), 404, 'notFound');
    expectProblem(await client.get(`${instance}/deliveries`), 404, 'notFound');
    expectProblem(await client.post(`${instance}/rotateSecret`), 404, 'notFound');
  }
});

describe('webhook URL rules without ALLOW_PRIVATE_URLS', () => {
  let t: TestApp;
  let api: ApiClient;
  let accountId: string;
  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX, ALLOW_PRIVATE_URLS: 'false' });
    const account = await createAccount(t);
    accountId = account.accountId;
    api = clientFor(t, account);
  });
  afterAll(() => t.close());

  const cases: Array<[string, RegExp]> = [
    ['http://example.com/hook', /^Webhook url must use https$/],
    ['http://127.0.0.1:8080/hook', /^Webhook url must use https$/],
    ['https://127.0.0.1/x', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://[::1]/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://2130706433/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://0x7f.1/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://169.254.169.254/latest/meta-data', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://localhost/', /^Webhook url /],
    ['https://api.localhost/', /^Webhook url /],
    ['https://foo.internal/', /^Webhook url /],
    ['https://printer.local/', /^Webhook url /],
    ['https://metadata.google.internal/computeMetadata/v1', /^Webhook url /],
    ['https://intranet/', /^Webhook url /],
    ['https://does-not-exist.invalid/', /^Webhook url /],
    ['https://does-not-exist.example.com/', /^Webhook url /],
  ];

  it.each(cases)('refuses %s on create', async (url, detail) => {
    const res = await api.post('/v1/webhooks').send({ url, eventFilters: ['*'] });
    const problem = expectProblem(res, 400, 'invalidWebhookUrl', '/v1/webhooks');
    expect(problem.detail).toMatch(detail);
    expect(problem.errors).toEqual([{ pointer: '#/url', detail: problem.detail }]);
  });

  it('refuses the same urls on PATCH and keeps the stored one', async () => {
    // No public name resolves offline, so the subscription is planted directly.
    const id = newId('subscription');
    const url = 'https://hooks.example.com/in';
    await t.app
      .get(DataSource)
      .query(`INSERT INTO webhook_subscriptions (id, account_id, url, event_filters, max_retries, signing_secret) VALUES ($1, $2, $3, '{*}', 5, 'secret')`, [
        id,
        accountId,
        url,
      ]);
    for (const [bad, detail] of cases) {
      const problem = expectProblem(await api.patch(`/v1/webhooks/${id}`).send({ url: bad }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toMatch(detail);
    }
    const [stored] = await t.app.get(DataSource).query(`SELECT url FROM webhook_subscriptions WHERE id = $1`, [id]);
    expect(stored.url).toBe(url);
  });
});
