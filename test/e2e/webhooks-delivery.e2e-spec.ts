import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WEBHOOK_DELIVERY_QUEUE } from '../../src/modules/webhooks/webhook-queue.service';
import { Scheduler } from '../../src/platform/scheduling/scheduler';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { validProperty } from '../support/properties';
import { dropRedisPrefix } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { deliveriesOf, publishEvent, subscribe, subscriptionOf, verifyWithLibrary, waitForFinalDeliveries } from '../support/webhooks';
import { subscriptionRow } from '../support/webhooks-api';
import { startWorker, TestWorker } from '../support/worker';

/**
 * The delivery engine end to end: the real API and worker (same Redis prefix, private to this file),
 * events published through a unit of work, a loopback receiver. Recovery paths (sweep, restart,
 * delivery-time URL rules, retention) are in webhooks-delivery-recovery.e2e-spec.ts.
 */
// The sweep and retention are off (webhooks-delivery-recovery.e2e-spec.ts runs them scoped to its own accounts).
const ENV = webhookTestEnv('delivery', { ...QUICK_RETRIES, WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '2' });
const ENVELOPE_KEYS = ['clientRequestId', 'apiRequestId', 'targetAccountId', 'createdAt', 'eventName', 'results', 'notifiedAt'];

describe('webhook delivery', () => {
  let t: TestApp;
  let worker: TestWorker;
  let account: TestAccount;
  let api: ApiClient;
  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t, worker, account, api } = engine.started()));

  /** Until the event is dispatched (its delivery rows, if any, exist). */
  function waitForDispatch(eventId: string) {
    return waitUntil(
      async () => {
        const [row] = await t.app.get(DataSource).query(`SELECT dispatched_at FROM events WHERE id = $1`, [eventId]);
        return row?.dispatched_at !== null;
      },
      10_000,
      `event ${eventId} dispatched`,
    );
  }

  it('POSTs the event with exactly the spec headers, the envelope and a signature standardwebhooks verifies', async () => {
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/hook`, ['property.create']);
    const before = Date.now();
    const event = await publishEvent(t, account.accountId, 'property.create', [{ id: 'prop_1', name: 'Villa' }]);
    const [request] = await r.waitFor(1);

    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook');
    // Only the spec's headers plus user-agent and what HTTP/1.1 itself needs.
    expect(Object.keys(request.headers).sort()).toEqual(
      [
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-max-retries',
        'webhook-retry-count',
        'webhook-signature',
        'webhook-timestamp',
      ].sort(),
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^PropertyOps-Webhooks\//);
    expect(request.headers['webhook-id']).toMatch(/^whd_[0-9A-Z]{26}$/);
    expect(request.headers['webhook-retry-count']).toBe('0');
    expect(request.headers['webhook-max-retries']).toBe('5');
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(String(timestamp)).toBe(request.headers['webhook-timestamp']);
    // Signed between the publish and the arrival (unix seconds).
    expect(timestamp).toBeGreaterThanOrEqual(Math.floor(before / 1000));
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(request.receivedAt.getTime() / 1000));
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    const body = JSON.parse(request.rawBody);
    expect(Object.keys(body)).toEqual(ENVELOPE_KEYS);
    expect(body).toEqual({
      clientRequestId: event.clientRequestId,
      apiRequestId: event.apiRequestId,
      targetAccountId: account.accountId,
      createdAt: event.createdAt.toISOString(),
      eventName: 'property.create',
      results: [{ id: 'prop_1', name: 'Villa' }],
      notifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(body.notifiedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(verifyWithLibrary(request, sub.signingSecret)).toEqual(body);
    // By hand, as docs/webhooks.md tells receivers: key = the secret string's bytes.
    const byHand = createHmac('sha256', sub.signingSecret)
      .update(`${request.headers['webhook-id']}.${timestamp}.${request.rawBody}`)
      .digest('base64');
    expect(request.headers['webhook-signature']).toBe(`v1,${byHand}`);

    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({
      id: request.headers['webhook-id'],
      eventId: event.id,
      status: 'delivered',
      test: false,
      attemptCount: 1,
      nextRetryAt: null,
    });
    expect(row.firstAttemptAt).toBe(row.lastAttemptAt);
    expect(row.attempts).toEqual([
      {
        at: row.firstAttemptAt,
        responseCode: 200,
        responseSnippet: 'ok',
        errorMessage: null,
        durationMs: expect.any(Number),
        // Extensions (issue 13): webhooks-delivery-log.e2e-spec.ts.
        errorClass: null,
        resolvedIp: '127.0.0.1',
        timings: expect.objectContaining({ totalMs: expect.any(Number) }),
        retryAfterMs: null,
      },
    ]);
  });

  it('delivers property.create from POST /v1/properties, clientRequestId echoing the Idempotency-Key', async () => {
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const r = await receiver();
    const sub = await subscribe(client, `${r.url}/properties`, ['property.*']);
    const key = `idem-${Date.now()}`;
    const created = await client
      .post('/v1/properties')
      .set('Idempotency-Key', key)
      .set('x-request-id', `req-${key}`)
      .send(validProperty())
      .expect(201);
    const [request] = await r.waitFor(1);
    const body = verifyWithLibrary(request, sub.signingSecret) as Record<string, any>;
    expect(body).toMatchObject({
      eventName: 'property.create',
      clientRequestId: key,
      apiRequestId: `req-${key}`,
      targetAccountId: own.accountId,
    });
    expect(body.results).toEqual([created.body]);
  });

  it('signs with both secrets during a rotation, new first, each verifying on its own', async () => {
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/rotate`);
    const rotated = (await api.post(`/v1/webhooks/${sub.id}/rotateSecret`).expect(200)).body;
    await publishEvent(t, account.accountId, 'jobRequest.completed');
    const [request] = await r.waitFor(1);

    const values = String(request.headers['webhook-signature']).split(' ');
    expect(values).toHaveLength(2);
    const content = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody}`;
    expect(values[0]).toBe(`v1,${createHmac('sha256', rotated.signingSecret).update(content).digest('base64')}`);
    expect(values[1]).toBe(`v1,${createHmac('sha256', sub.signingSecret).update(content).digest('base64')}`);
    expect(verifyWithLibrary(request, rotated.signingSecret)).toBeTruthy();
    expect(verifyWithLibrary(request, sub.signingSecret)).toBeTruthy();
    expect(() => verifyWithLibrary(request, 'not-the-secret')).toThrow('No matching signature');
  });

  it('retries non-2xx answers with growing delays, the same webhook-id and a fresh notifiedAt and signature', async () => {
    const r = await receiver();
    r.enqueue({ status: 500, body: 'boom' }, { status: 503 });
    const sub = await subscribe(api, `${r.url}/retry`);
    await publishEvent(t, account.accountId, 'property.create');
    const requests = await r.waitFor(3);

    expect(requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0', '1', '2']);
    expect(new Set(requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((q) => JSON.parse(q.rawBody).notifiedAt)).size).toBe(3);
    expect(new Set(requests.map((q) => q.headers['webhook-signature'])).size).toBe(3);
    requests.forEach((q) => expect(verifyWithLibrary(q, sub.signingSecret)).toBeTruthy());
    // base 100 ms: retry 1 after ≥100 ms, retry 2 after ≥200 ms.
    const gap1 = requests[1].receivedAt.getTime() - requests[0].receivedAt.getTime();
    const gap2 = requests[2].receivedAt.getTime() - requests[1].receivedAt.getTime();
    expect(gap1).toBeGreaterThanOrEqual(95);
    expect(gap2).toBeGreaterThanOrEqual(195);

    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row.status).toBe('delivered');
    expect(row.attemptCount).toBe(3);
    expect(row.attempts.map((a: any) => [a.responseCode, a.responseSnippet, a.errorMessage])).toEqual([
      [500, 'boom', 'non-2xx response (HTTP 500)'],
      [503, '', 'non-2xx response (HTTP 503)'],
      [200, 'ok', null],
    ]);
    // Final: each attempt reached the receiver before it was recorded, and none can follow.
    expect(r.requests).toHaveLength(3);
  });

  it('counts a receiver slower than WEBHOOK_TIMEOUT_MS as a failed attempt', async () => {
    const r = await receiver();
    r.enqueue({ status: 200, delayMs: 1600 });
    const sub = await subscribe(api, `${r.url}/slow`);
    await publishEvent(t, account.accountId, 'property.create');
    const [row] = await waitForFinalDeliveries(api, sub.id, 1, 15_000);
    expect(row.status).toBe('delivered');
    expect(row.attemptCount).toBe(2);
    expect(row.attempts[0]).toMatchObject({ responseCode: null, responseSnippet: null, errorMessage: 'timed out after 1000 ms' });
    expect(row.attempts[0].durationMs).toBeGreaterThanOrEqual(990);
    expect(row.attempts[1]).toMatchObject({ responseCode: 200, errorMessage: null });
  });

  it('ends failed_permanent once maxRetries are spent, every attempt recorded with a capped snippet', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 500, body: `${'é'.repeat(600)}tail` }));
    const sub = await subscribe(api, `${r.url}/down`, ['*'], 2);
    await publishEvent(t, account.accountId, 'property.create');
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ status: 'failed_permanent', attemptCount: 3, nextRetryAt: null });
    expect(row.attempts).toHaveLength(3);
    for (const attempt of row.attempts) {
      expect(attempt).toEqual({
        at: expect.any(String),
        responseCode: 500,
        responseSnippet: 'é'.repeat(512),
        errorMessage: 'non-2xx response (HTTP 500)',
        durationMs: expect.any(Number),
        errorClass: null,
        resolvedIp: '127.0.0.1',
        timings: expect.objectContaining({ totalMs: expect.any(Number) }),
        retryAfterMs: null,
      });
    }
    expect(r.requests.map((q) => q.headers['webhook-max-retries'])).toEqual(['2', '2', '2']);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const r = await receiver();
    r.respondWith((request) => (request.path === '/moved' ? { status: 301, headers: { location: `${r.url}/target` } } : { status: 200 }));
    const sub = await subscribe(api, `${r.url}/moved`, ['*'], 0);
    await publishEvent(t, account.accountId, 'property.create');
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row.status).toBe('failed_permanent');
    expect(row.attempts[0]).toMatchObject({ responseCode: 301, errorMessage: `redirect not followed (HTTP 301 to ${r.url}/target)` });
    // A followed redirect would have reached /target within the attempt, before it was recorded.
    expect(r.requests.map((q) => q.path)).toEqual(['/moved']);
  });

  it('delivers through the fast path alone (no sweep runs in this file)', () => {
    expect(worker.ctx.get(Scheduler).taskNames()).toEqual([]);
  });

  it('disables a subscription after 10 consecutive permanent failures, counts test deliveries never, and resumes on re-enable', async () => {
    const r = await receiver();
    let healthy = false;
    r.respondWith(() => ({ status: healthy ? 204 : 500 }));
    // property.* rather than *: the account's other subscriptions' webhook.disabled events (an extension) stay out of its count.
    const sub = await subscribe(api, `${r.url}/flaky`, ['property.*'], 0);

    // Test deliveries fail too, but never count.
    for (let i = 0; i < 10; i++) await api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'property.create' }).expect(202);
    await waitForFinalDeliveries(api, sub.id, 10);
    expect((await subscriptionOf(api, sub.id)).enabled).toBe(true);

    // 9 failures, one success (resets), 9 failures: still enabled.
    for (let i = 0; i < 9; i++) await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 19);
    healthy = true;
    await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 20);
    healthy = false;
    for (let i = 0; i < 9; i++) await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 29);
    expect((await subscriptionOf(api, sub.id)).enabled).toBe(true);

    // The 10th consecutive one disables it.
    await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 30);
    const disabled = await subscriptionOf(api, sub.id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_after_repeated_delivery_failures' });

    // Disabled: new events are not delivered (dispatched, and no delivery row for this subscription).
    const seen = r.requests.length;
    const missed = await publishEvent(t, account.accountId, 'property.create');
    await waitForDispatch(missed.id);
    expect(await deliveriesOf(api, sub.id)).toHaveLength(30);
    expect(r.requests).toHaveLength(seen);

    // Re-enabled: reason cleared, deliveries flow again.
    healthy = true;
    const patched = (await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: true }).expect(200)).body;
    expect(patched.enabled).toBe(true);
    expect(patched.disabledReason).toBeUndefined();
    await publishEvent(t, account.accountId, 'property.create');
    const rows = await waitForFinalDeliveries(api, sub.id, 31);
    expect(rows[0].status).toBe('delivered');
  });

  it('sends test deliveries flagged test: true with the requested eventName, signed with the real secret, never in the feed', async () => {
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const r = await receiver();
    const sub = await subscribe(client, `${r.url}/test`, ['property.create']);
    const res = await client.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'jobRequest.completed' }).expect(202);
    expect(res.body).toEqual({ deliveryId: expect.stringMatching(/^whd_/), status: 'pending' });
    const [request] = await r.waitFor(1);
    expect(request.headers['webhook-id']).toBe(res.body.deliveryId);
    const body = JSON.parse(request.rawBody);
    expect(Object.keys(body)).toEqual([...ENVELOPE_KEYS, 'test']);
    expect(body).toMatchObject({ eventName: 'jobRequest.completed', targetAccountId: own.accountId, test: true, results: [] });
    expect(verifyWithLibrary(request, sub.signingSecret)).toEqual(body);
    const [row] = await waitForFinalDeliveries(client, sub.id, 1);
    expect(row).toMatchObject({ id: res.body.deliveryId, eventId: null, test: true, status: 'delivered' });
    expect((await client.get('/v1/events').expect(200)).body.data).toEqual([]);
  });

  it('matches filters (exact, prefix.*, *), skips events older than the subscription and other accounts', async () => {
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const [exact, prefix, all, none, both] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
    await publishEvent(t, own.accountId, 'property.create'); // before any subscription: never delivered
    await subscribe(client, `${exact.url}/h`, ['property.create']);
    await subscribe(client, `${prefix.url}/h`, ['jobRequest.*']);
    await subscribe(client, `${all.url}/h`, ['*']);
    await subscribe(client, `${none.url}/h`, ['comment.new', 'jobRequestX.*', 'property.create.extra']);
    await subscribe(client, `${both.url}/h`, ['property.create', 'property.*']);

    const stranger = await createAccount(t);
    await publishEvent(t, stranger.accountId, 'property.create');
    for (const name of ['property.create', 'jobRequest.completed', 'jobRequest.canceled', 'checklist.update'])
      await publishEvent(t, own.accountId, name);

    // Every event dispatched and every delivery of the account final: nothing more can arrive.
    await waitUntil(
      async () => {
        const [row] = await t.app.get(DataSource).query(
          `SELECT (SELECT count(*) FROM events WHERE account_id = $1 AND dispatched_at IS NULL)::int
                + (SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND status = 'pending')::int AS open`,
          [own.accountId],
        );
        return row.open === 0;
      },
      10_000,
      'the account settled',
    );
    const names = (rcv: WebhookReceiver) => rcv.requests.map((q) => JSON.parse(q.rawBody).eventName).sort();
    expect(names(all)).toEqual(['checklist.update', 'jobRequest.canceled', 'jobRequest.completed', 'property.create']);
    expect(names(exact)).toEqual(['property.create']);
    expect(names(prefix)).toEqual(['jobRequest.canceled', 'jobRequest.completed']);
    expect(names(none)).toEqual([]);
    expect(names(both)).toEqual(['property.create']); // one delivery per event, however many filters match
    for (const rcv of [exact, prefix, all, both])
      rcv.requests.forEach((q) => expect(JSON.parse(q.rawBody).targetAccountId).toBe(own.accountId));
  });

  it('keeps at most WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION requests in flight per subscription; a slow one does not hold up others', async () => {
    // An app and worker of the test's own, whose time-out outlasts a receiver that holds its answers.
    const env = { ...ENV, REDIS_PREFIX: `${ENV.REDIS_PREFIX}-concurrency`, WEBHOOK_TIMEOUT_MS: '30000' };
    const app = await startApp(env);
    const own = await startWorker(env);
    try {
      const owner = await createAccount(app);
      const client = clientFor(app, owner);
      const slow = await receiver();
      let inFlight = 0;
      let peak = 0;
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      slow.respondWith(async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await held;
        inFlight--;
        return { status: 200 };
      });
      const fast = await receiver();
      const busy = await subscribe(client, `${slow.url}/busy`);
      const other = await subscribe(client, `${fast.url}/other`);
      for (let i = 0; i < 8; i++) await publishEvent(app, owner.accountId, 'property.create');
      // The slow receiver holds every answer until the other subscription has all of its deliveries.
      await slow.waitFor(2);
      // Jobs beyond what may wait in memory for the slow receiver are parked in the queue (delayed), not in worker slots.
      const deliveryQueue = own.ctx.get<Queue>(getQueueToken(WEBHOOK_DELIVERY_QUEUE));
      await waitUntil(async () => (await deliveryQueue.getDelayedCount()) > 0, 5_000, 'a parked delivery job');
      await waitForFinalDeliveries(client, other.id, 8);
      expect((await deliveriesOf(client, busy.id)).filter((row) => row.status === 'delivered')).toHaveLength(0);
      expect(inFlight).toBe(2);
      release();
      const rows = await waitForFinalDeliveries(client, busy.id, 8, 20_000);
      expect(peak).toBe(2);
      // Parking never used up an attempt.
      expect(rows.every((row) => row.status === 'delivered' && row.attemptCount === 1)).toBe(true);
      expect(slow.requests).toHaveLength(8);
    } finally {
      await own.close();
      await app.close();
      await dropRedisPrefix(app.config.redis, env.REDIS_PREFIX);
    }
  });

  it('stops pending retries when the subscription is disabled (not counted) or deleted', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 500 }));
    const sub = await subscribe(api, `${r.url}/stop`, ['*'], 10);
    await publishEvent(t, account.accountId, 'property.create');
    await r.waitFor(2);
    await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: false }).expect(200);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row.status).toBe('failed_permanent');
    expect(row.attempts[row.attempts.length - 1]).toMatchObject({ responseCode: null, errorMessage: 'subscription disabled' });
    expect(row.attemptCount).toBe(r.requests.length + 1);
    expect((await subscriptionRow(t.app.get(DataSource), sub.id)).consecutive_failures).toBe(0);

    const r2 = await receiver();
    r2.respondWith(() => ({ status: 500 }));
    const sub2 = await subscribe(api, `${r2.url}/gone`, ['*'], 10);
    await publishEvent(t, account.accountId, 'property.create');
    await r2.waitFor(2);
    await api.delete(`/v1/webhooks/${sub2.id}`).expect(204);
    const seen = r2.requests.length;
    // Every job of the deleted delivery ran (and dropped itself): nothing more can be sent.
    const deliveryId = String(r2.requests[0].headers['webhook-id']);
    const deliveryQueue = worker.ctx.get<Queue>(getQueueToken(WEBHOOK_DELIVERY_QUEUE));
    await waitUntil(
      async () => {
        const jobs = await deliveryQueue.getJobs(['active', 'wait', 'delayed', 'prioritized', 'paused']);
        return !jobs.some((job) => job?.id?.startsWith(`${deliveryId}.`));
      },
      10_000,
      'every job of the deleted delivery to run',
    );
    expect(r2.requests.length).toBeLessThanOrEqual(seen + 1); // at most the attempt already in flight
  });
});
