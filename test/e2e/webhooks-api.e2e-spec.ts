import { ApiClient, clientFor, createAccount } from '../support/app';
import { expectProblem } from '../support/problem';
import { hookUrl, openStored, webhooksApiSuite } from '../support/webhooks-api';

/**
 * The webhook subscriptions API (spec 2.7, 3.4, 4.8). Test deliveries and the delivery log are in
 * webhooks-api-deliveries.e2e-spec.ts, URL rules without ALLOW_PRIVATE_URLS in webhooks-api-url-rules.e2e-spec.ts.
 * No worker runs here: the few test deliveries stay pending in this file's own Redis prefix.
 */
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-webhooks-api`;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

describe('webhook subscriptions API', () => {
  const w = webhooksApiSuite(REDIS_PREFIX);
  const { create, row } = w;

  describe('POST /v1/webhooks', () => {
    it('creates a subscription and shows its secret once, with the defaults', async () => {
      const url = hookUrl();
      const res = await w.api
        .post('/v1/webhooks')
        .send({ url, eventFilters: ['jobRequest.*', 'property.create'] })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^sub_[0-9A-Z]{26}$/),
        url,
        eventFilters: ['jobRequest.*', 'property.create'],
        enabled: true,
        maxRetries: 5,
        rateLimitPerSecond: null, // pacing (issue 23, an extension): unpaced by default
        ordered: false, // ordered endpoints (issue 31, an extension): unordered by default
        createdAt: expect.any(String),
        signingSecret: expect.stringMatching(SECRET),
      });
      expect(Buffer.from(res.body.signingSecret, 'base64url')).toHaveLength(32);
      expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
      const stored = await row(res.body.id);
      // Stored sealed (AES-256-GCM under the configured key), never as the secret itself.
      expect(stored.signing_secret).toMatch(/^v1\.dev\.[A-Za-z0-9_-]+$/);
      expect(stored.signing_secret).not.toContain(res.body.signingSecret);
      expect(openStored(stored.signing_secret, res.body.id)).toBe(res.body.signingSecret);
      expect(stored.consecutive_failures).toBe(0);
    });

    it('never shows secrets again: list and patch', async () => {
      const created = await create();
      const list = await w.api.get('/v1/webhooks').expect(200);
      expect(list.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
      const listed = list.body.data.find((s: { id: string }) => s.id === created.id);
      const { signingSecret, ...withoutSecret } = created;
      expect(signingSecret).toMatch(SECRET);
      expect(listed).toEqual(withoutSecret);
      expect(JSON.stringify(list.body)).not.toContain(signingSecret);
      const patched = await w.api.patch(`/v1/webhooks/${created.id}`).send({ enabled: true }).expect(200);
      expect(patched.body).toEqual(withoutSecret);
    });

    it("lists an account's subscriptions only, in creation order", async () => {
      const account = clientFor(w.t, await createAccount(w.t));
      const a = await create({}, account);
      const b = await create({}, account);
      const list = await account.get('/v1/webhooks').expect(200);
      expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
      const others = await w.otherApi.get('/v1/webhooks').expect(200);
      expect(others.body.data.map((s: { id: string }) => s.id)).not.toContain(a.id);
    });

    it.each([0, 10])('accepts maxRetries %d (bound)', async (maxRetries) => {
      expect((await create({ maxRetries })).maxRetries).toBe(maxRetries);
    });

    it.each([-1, 11, 1.5, '5', null, true])('rejects maxRetries %p', async (maxRetries) => {
      const res = await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], maxRetries });
      const problem = expectProblem(res, 400, 'validationFailed', '/v1/webhooks');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/maxRetries' })]);
    });

    it('requires url and eventFilters', async () => {
      const res = await w.api.post('/v1/webhooks').send({});
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/eventFilters', '#/url']);
      expectProblem(await w.api.post('/v1/webhooks').send({ url: hookUrl() }), 400, 'validationFailed');
      expectProblem(await w.api.post('/v1/webhooks').send({ eventFilters: ['*'] }), 400, 'validationFailed');
    });

    it.each([[[]], ['*'], [null], [[1]], [['*', 2]], [{ 0: '*' }]])('rejects eventFilters %j', async (eventFilters) => {
      const res = await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters });
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/eventFilters' })]);
    });

    it.each(['job*', '.x', 'a..b', '**', 'jobRequest', 'jobRequest.c*', '*.create', '', 'a.b '])(
      'rejects the filter %j and names it',
      async (filter) => {
        const res = await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['property.create', filter] });
        const problem = expectProblem(res, 400, 'validationFailed');
        expect(problem.errors).toEqual([{ pointer: '#/eventFilters', detail: expect.stringContaining(JSON.stringify(filter)) }]);
        expect(problem.errors[0].detail).not.toContain('"property.create"');
      },
    );

    it('takes up to 50 filters and removes repeats', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `resource${i}.done`);
      expect((await create({ eventFilters: fifty })).eventFilters).toEqual(fifty);
      const res = await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: [...fifty, 'one.more'] });
      expectProblem(res, 400, 'validationFailed');
      const deduped = await create({ eventFilters: ['jobRequest.*', 'comment.new', 'jobRequest.*'] });
      expect(deduped.eventFilters).toEqual(['jobRequest.*', 'comment.new']);
    });

    it('caps a filter at 100 characters', async () => {
      const atBound = `a.${'b'.repeat(98)}`;
      expect((await create({ eventFilters: [atBound] })).eventFilters).toEqual([atBound]);
      expectProblem(await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: [`${atBound}b`] }), 400, 'validationFailed');
      // The answer names an oversized entry by its start, without echoing it whole.
      const huge = `${'x'.repeat(10_000)}.*`;
      const problem = expectProblem(
        await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: [huge] }),
        400,
        'validationFailed',
      );
      expect(problem.errors[0].detail).toContain(`"${'x'.repeat(39)}…`);
      expect(JSON.stringify(problem).length).toBeLessThan(2_000);
    });

    it.each([[42], [null], [['https://localhost/x']]])('rejects a url that is not a string: %j', async (url) => {
      const problem = expectProblem(await w.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] }), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/url' })]);
    });

    it('caps the url at 2048 characters', async () => {
      const base = 'https://localhost/';
      const atBound = base + 'x'.repeat(2048 - base.length);
      expect((await create({ url: atBound })).url).toBe(atBound);
      const problem = expectProblem(
        await w.api.post('/v1/webhooks').send({ url: `${atBound}y`, eventFilters: ['*'] }),
        400,
        'validationFailed',
      );
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/url' })]);
    });

    it('caps the url at 2048 characters as stored: percent-encoding may lengthen it (400, not a 500 from the url index)', async () => {
      // 2,000 distinct CJK characters: within the 2048 the DTO counts, about 18,000 once percent-encoded (and incompressible).
      const path = Array.from({ length: 2000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
      const url = `https://localhost/${path}`;
      const problem = expectProblem(await w.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toBe(
        'Webhook url is longer than 2048 characters once normalised (characters outside ASCII count as their percent-encoding)',
      );
      const s = await create();
      expectProblem(await w.api.patch(`/v1/webhooks/${s.id}`).send({ url }), 400, 'invalidWebhookUrl');
    });

    it.each(['not a url', '', 'ftp://localhost/x', 'https://user:pw@localhost/x', '/relative'])(
      'rejects the url %j with a Webhook url detail',
      async (url) => {
        const problem = expectProblem(await w.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] }), 400, 'invalidWebhookUrl');
        expect(problem.detail).toMatch(/^Webhook url /);
        expect(problem.errors).toEqual([{ pointer: '#/url', detail: problem.detail }]);
      },
    );

    it('rejects unknown fields, naming each (objectStrict)', async () => {
      const res = await w.api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], enabled: true, secret: 'x' });
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
      const res = await w.api.post('/v1/webhooks').send({ url, eventFilters: ['comment.new'] });
      const problem = expectProblem(res, 409, 'conflict');
      expect(problem.existingId).toBe(first.id);
      expect(problem.title).toBe('Conflict');
      const spelled = url.replace('https://localhost/', 'HTTPS://LOCALHOST:443/') + '#x';
      expect(expectProblem(await w.api.post('/v1/webhooks').send({ url: spelled, eventFilters: ['*'] }), 409, 'conflict').existingId).toBe(
        first.id,
      );
    });

    it('lets another account use the same url', async () => {
      const url = hookUrl();
      await create({ url });
      await create({ url }, w.otherApi);
    });

    it('lets exactly one of concurrent creates win', async () => {
      const url = hookUrl();
      const results = await Promise.all(Array.from({ length: 6 }, () => w.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })));
      const won = results.filter((r) => r.status === 201);
      expect(won).toHaveLength(1);
      for (const lost of results.filter((r) => r.status !== 201)) {
        expect(expectProblem(lost, 409, 'conflict').existingId).toBe(won[0].body.id);
      }
    });

    it("gives 409 with existingId when PATCH takes another subscription's url; its own url is fine", async () => {
      const a = await create();
      const b = await create();
      const problem = expectProblem(await w.api.patch(`/v1/webhooks/${b.id}`).send({ url: a.url }), 409, 'conflict');
      expect(problem.existingId).toBe(a.id);
      expect((await row(b.id)).url).toBe(b.url);
      await w.api.patch(`/v1/webhooks/${b.id}`).send({ url: b.url }).expect(200);
    });
  });

  describe('PATCH /v1/webhooks/{webhookId}', () => {
    it('replaces eventFilters (not a union)', async () => {
      const s = await create({ eventFilters: ['jobRequest.*', 'comment.new'] });
      const res = await w.api
        .patch(`/v1/webhooks/${s.id}`)
        .send({ eventFilters: ['property.create'] })
        .expect(200);
      expect(res.body.eventFilters).toEqual(['property.create']);
      expect((await row(s.id)).event_filters).toEqual(['property.create']);
    });

    it('changes the url and keeps the secret', async () => {
      const s = await create();
      const url = hookUrl();
      const res = await w.api.patch(`/v1/webhooks/${s.id}`).send({ url }).expect(200);
      expect(res.body).toEqual({ ...s, url, signingSecret: undefined });
      expect(res.body).not.toHaveProperty('signingSecret');
      expect(openStored((await row(s.id)).signing_secret, s.id)).toBe(s.signingSecret);
    });

    it('answers an empty patch with the unchanged subscription', async () => {
      const s = await create({ maxRetries: 3 });
      const { signingSecret: _, ...shape } = s;
      expect((await w.api.patch(`/v1/webhooks/${s.id}`).send({}).expect(200)).body).toEqual(shape);
    });

    it('disables without a reason, and enabling clears a recorded reason and resets the failure counter', async () => {
      const s = await create();
      const off = await w.api.patch(`/v1/webhooks/${s.id}`).send({ enabled: false }).expect(200);
      expect(off.body.enabled).toBe(false);
      expect(off.body).not.toHaveProperty('disabledReason');

      await w.db.query(
        `UPDATE webhook_subscriptions SET disabled_reason = 'auto_disabled_after_repeated_delivery_failures', consecutive_failures = 10 WHERE id = $1`,
        [s.id],
      );
      const listed = (await w.api.get('/v1/webhooks').expect(200)).body.data.find((x: { id: string }) => x.id === s.id);
      expect(listed).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_after_repeated_delivery_failures' });

      const on = await w.api.patch(`/v1/webhooks/${s.id}`).send({ enabled: true }).expect(200);
      expect(on.body.enabled).toBe(true);
      expect(on.body).not.toHaveProperty('disabledReason');
      const stored = await row(s.id);
      expect(stored).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    });

    it('keeps the counter when enabled is not sent', async () => {
      const s = await create();
      await w.db.query(`UPDATE webhook_subscriptions SET consecutive_failures = 4 WHERE id = $1`, [s.id]);
      await w.api
        .patch(`/v1/webhooks/${s.id}`)
        .send({ eventFilters: ['a.b'] })
        .expect(200);
      expect((await row(s.id)).consecutive_failures).toBe(4);
    });

    it.each([
      [{ maxRetries: 3 }, ['#/maxRetries']],
      [{ signingSecret: 'x', enabled: true }, ['#/signingSecret']],
      [{ disabledReason: null }, ['#/disabledReason']],
    ])('rejects fields PATCH does not take: %j', async (body, pointers) => {
      const s = await create();
      const problem = expectProblem(await w.api.patch(`/v1/webhooks/${s.id}`).send(body), 400, 'objectStrict');
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
      const problem = expectProblem(await w.api.patch(`/v1/webhooks/${s.id}`).send(body), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer })]);
    });

    it('checks a new url against the URL rules', async () => {
      const s = await create();
      const problem = expectProblem(await w.api.patch(`/v1/webhooks/${s.id}`).send({ url: 'ftp://localhost/' }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toMatch(/^Webhook url /);
      expect((await row(s.id)).url).toBe(s.url);
    });
  });

  describe('POST /v1/webhooks/{webhookId}/rotateSecret', () => {
    it('issues a new secret and keeps the old one signing for 24 hours', async () => {
      const s = await create();
      const res = await w.api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200);
      expect(res.body).toEqual({
        id: s.id,
        signingSecret: expect.stringMatching(SECRET),
        previousSecretExpiresAt: expect.any(String),
        ordered: false,
      });
      expect(res.body.signingSecret).not.toBe(s.signingSecret);
      expect(Math.abs(Date.parse(res.body.previousSecretExpiresAt) - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
      const stored = await row(s.id);
      expect(openStored(stored.signing_secret, s.id)).toBe(res.body.signingSecret);
      expect(openStored(stored.previous_secret, s.id)).toBe(s.signingSecret);
      expect(stored.previous_secret_expires_at.toISOString()).toBe(res.body.previousSecretExpiresAt);
    });

    it('a second rotation within 24 hours drops the oldest secret', async () => {
      const s = await create();
      const first = (await w.api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200)).body;
      const second = (await w.api.post(`/v1/webhooks/${s.id}/rotateSecret`).expect(200)).body;
      const stored = await row(s.id);
      expect(openStored(stored.signing_secret, s.id)).toBe(second.signingSecret);
      expect(openStored(stored.previous_secret, s.id)).toBe(first.signingSecret);
    });

    it('takes no body fields', async () => {
      const s = await create();
      expectProblem(await w.api.post(`/v1/webhooks/${s.id}/rotateSecret`).send({ secret: 'mine' }), 400, 'objectStrict');
      expect(openStored((await row(s.id)).signing_secret, s.id)).toBe(s.signingSecret);
    });
  });

  describe('DELETE /v1/webhooks/{webhookId}', () => {
    it('deletes the subscription and its deliveries; every route then answers 404', async () => {
      const s = await create();
      const deliveryId = (await w.api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }).expect(202)).body.deliveryId;
      const res = await w.api.delete(`/v1/webhooks/${s.id}`).expect(204);
      expect(res.text).toBe('');
      expect(await row(s.id)).toBeUndefined();
      expect(await w.db.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1`, [deliveryId])).toEqual([]);
      await expectNotFoundEverywhere(w.api, s.id);
      expect((await w.api.get('/v1/webhooks').expect(200)).body.data.map((x: { id: string }) => x.id)).not.toContain(s.id);
      // The url is free again.
      await create({ url: s.url });
    });
  });

  describe('other accounts', () => {
    it("answers 404 on every route for another account's subscription and changes nothing", async () => {
      const s = await create();
      await expectNotFoundEverywhere(w.otherApi, s.id);
      const stored = await row(s.id);
      expect(stored).toMatchObject({ url: s.url, enabled: true });
      expect(openStored(stored.signing_secret, s.id)).toBe(s.signingSecret);
      expect(await w.db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
    });

    it('answers 404 for ids that do not exist', async () => {
      await expectNotFoundEverywhere(w.api, 'sub_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      await expectNotFoundEverywhere(w.api, 'nonsense');
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
