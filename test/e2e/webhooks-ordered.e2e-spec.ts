import { DataSource } from 'typeorm';
import { WebhookBatches } from '../../src/modules/webhooks/engine/batches/webhook-batches.service';
import { WebhookClaims } from '../../src/modules/webhooks/engine/claims/webhook-claims.service';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { feedOrder, logArrivals, numberOf, orderViolations, publishSeries } from '../support/ordered-webhooks';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { deliveriesOf, subscriptionOf, waitForFinalDeliveries } from '../support/webhooks';
import { TestWorker } from '../support/worker';

/**
 * Ordered endpoints (issue 31, an extension): an ordered subscription's deliveries go one at a time in
 * the order GET /v1/events lists their events, each after the one before it succeeded or ended for good.
 * The order is checked on the receiver's own record of arrivals (support/ordered-webhooks.ts).
 */
const TIMEOUT_MS = 1_000;
const ENV = webhookTestEnv('ordered', { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });

describe('ordered webhook endpoints', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  let worker: TestWorker;
  const engine = useWebhookEngine(ENV);
  beforeAll(() => ({ t, db, account, api, worker } = engine.started()));

  async function subscribeOrdered(url: string, eventFilters: string[], extra: Record<string, unknown> = {}) {
    const res = await api
      .post('/v1/webhooks')
      .send({ url, eventFilters, ordered: true, ...extra })
      .expect(201);
    return res.body as { id: string };
  }

  it('takes ordered as a boolean on create and update, shows it in every read, and refuses anything else', async () => {
    const r = await engine.receiver();
    const plain = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/plain`, eventFilters: ['*'] })
      .expect(201);
    expect(plain.body.ordered).toBe(false);
    expect(plain.body).not.toHaveProperty('waitingDeliveries');
    const created = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/ordered`, eventFilters: ['*'], ordered: true })
      .expect(201);
    expect(created.body).toMatchObject({ ordered: true, waitingDeliveries: 0 });
    expect(await subscriptionOf(api, created.body.id)).toMatchObject({ ordered: true, waitingDeliveries: 0 });
    expect((await api.post(`/v1/webhooks/${created.body.id}/rotateSecret`).expect(200)).body.ordered).toBe(true);
    const patched = await api.patch(`/v1/webhooks/${created.body.id}`).send({ ordered: false }).expect(200);
    expect(patched.body.ordered).toBe(false);
    expect(patched.body).not.toHaveProperty('waitingDeliveries');

    for (const bad of ['true', 1, 0, null, [], {}, 'yes']) {
      for (const res of [
        await api.post('/v1/webhooks').send({ url: `${r.url}/bad`, eventFilters: ['*'], ordered: bad }),
        await api.patch(`/v1/webhooks/${created.body.id}`).send({ ordered: bad }),
      ]) {
        const problem = expectProblem(res, 400, 'validationFailed');
        expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/ordered' })]);
      }
    }
  });

  it('keeps the order through 500s, a time-out and a 429 with Retry-After on the second of five events, showing who waits for whom', async () => {
    const r = await engine.receiver();
    // Event 1 (the second): 500, 500, no answer in time, 429 Retry-After 1 s, then 200.
    const log = logArrivals(r, (n, attempt) => {
      if (n !== 1 || attempt >= 4) return { status: 200 };
      if (attempt === 2) return { status: 200, delayMs: TIMEOUT_MS + 300 };
      if (attempt === 3) return { status: 429, headers: { 'retry-after': '1' } };
      return { status: 500 };
    });
    const sub = await subscribeOrdered(`${r.url}/scripted`, ['ordered.scripted']);
    await publishSeries(t, account.accountId, 'ordered.scripted', 5);

    // While event 1 fails, the three after it wait, pending, each naming it; the subscription counts them.
    const waiting = await waitUntil(
      async () => {
        const rows = await deliveriesOf(api, sub.id);
        const behind = rows.filter((row) => row.waitingFor);
        return behind.length === 3 ? { rows, behind } : undefined;
      },
      20_000,
      'three deliveries waiting',
      20,
    );
    const head = waiting.rows.find((row) => !row.waitingFor && row.status === 'pending')!;
    expect(waiting.behind.every((row) => row.status === 'pending' && row.attemptCount === 0 && row.waitingFor === head.id)).toBe(true);
    expect((await subscriptionOf(api, sub.id)).waitingDeliveries).toBeGreaterThanOrEqual(1);

    await r.waitFor(9, 30_000);
    expect((await waitForFinalDeliveries(api, sub.id, 5, 20_000)).every((row) => row.status === 'delivered')).toBe(true);
    const feed = await feedOrder(api, 'ordered.scripted', 5);
    expect(orderViolations(log, feed)).toEqual([]);
    expect(log.of(1).map((a) => a.retryCount)).toEqual([0, 1, 2, 3, 4]);
    expect(log.arrivals).toHaveLength(9);
    // Retry-After held event 1's last attempt back about a second, and the rest behind it.
    const rows = await deliveriesOf(api, sub.id);
    expect(rows.every((row) => row.waitingFor === undefined)).toBe(true);
    expect((await subscriptionOf(api, sub.id)).waitingDeliveries).toBe(0);
  }, 60_000);

  it('lets the next delivery go once one fails for good', async () => {
    const r = await engine.receiver();
    const log = logArrivals(r, (n) => (n === 1 ? { status: 500 } : { status: 204 }));
    const sub = await subscribeOrdered(`${r.url}/permanent`, ['ordered.permanent'], { maxRetries: 1 });
    await publishSeries(t, account.accountId, 'ordered.permanent', 4);
    const rows = await waitForFinalDeliveries(api, sub.id, 4, 20_000);
    expect(rows.filter((row) => row.status === 'failed_permanent')).toHaveLength(1);
    expect(orderViolations(log, await feedOrder(api, 'ordered.permanent', 4))).toEqual([]);
    expect(log.of(1)).toHaveLength(2);
  }, 40_000);

  it('has one attempt in flight at a time with a slow receiver and two workers', async () => {
    const r = await engine.receiver();
    const log = logArrivals(r, () => ({ status: 200, delayMs: 150 }));
    const second = await engine.worker();
    const sub = await subscribeOrdered(`${r.url}/slow`, ['ordered.slow']);
    // Both workers claim for the subscription all along, as a flood of wake-ups would make them.
    const wake = { accountId: account.accountId, subscriptionId: sub.id, fromId: 'whd_0', ordered: true };
    const pokes = setInterval(() => {
      for (const w of [worker, second]) void w.ctx.get(WebhookBatches).wake([wake]);
    }, 10);
    try {
      await publishSeries(t, account.accountId, 'ordered.slow', 12);
      await r.waitFor(12, 30_000);
    } finally {
      clearInterval(pokes);
    }
    await second.close();
    expect((await waitForFinalDeliveries(api, sub.id, 12, 20_000)).every((row) => row.status === 'delivered')).toBe(true);
    expect(log.maxInFlight()).toBe(1);
    expect(log.arrivals).toHaveLength(12);
    expect(orderViolations(log, await feedOrder(api, 'ordered.slow', 12))).toEqual([]);
  }, 60_000);

  it('turning ordered on puts the backlog not attempted yet in order', async () => {
    const r = await engine.receiver();
    const log = logArrivals(r, () => ({ status: 200 }));
    // Paced at 2 a second: the backlog waits unattempted (a claim holds about a second of turns).
    const created = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/toggle-on`, eventFilters: ['ordered.on'], rateLimitPerSecond: 2 })
      .expect(201);
    const sub = created.body as { id: string };
    // A first event teaches the worker the rate, so its next claims take a second of turns, not the whole backlog.
    await publishSeries(t, account.accountId, 'ordered.on', 1);
    await r.waitFor(1, 10_000);
    await publishSeries(t, account.accountId, 'ordered.on', 8, 1);
    await r.waitFor(2, 10_000);
    await api.patch(`/v1/webhooks/${sub.id}`).send({ ordered: true }).expect(200);
    // Which deliveries joined the order is the database's to say; their order is the receiver's record.
    const joined: Array<{ n: number }> = await db.query(
      `SELECT (e.results -> 0 ->> 'n')::int AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.subscription_id = $1 AND d.order_tx IS NOT NULL`,
      [sub.id],
    );
    expect(joined.length).toBeGreaterThanOrEqual(3);
    expect((await waitForFinalDeliveries(api, sub.id, 9, 30_000)).every((row) => row.status === 'delivered')).toBe(true);
    expect(log.arrivals).toHaveLength(9);
    const inOrder = new Set(joined.map((row) => row.n));
    const feed = (await feedOrder(api, 'ordered.on', 9)).filter((n) => inOrder.has(n));
    expect(orderViolations(log, feed)).toEqual([]);
  }, 60_000);

  it('turning ordered off lets the backlog go at once, while the attempted head keeps its retries', async () => {
    const r = await engine.receiver();
    let hold = true;
    const log = logArrivals(r, (n) => (hold && n === 0 ? { status: 503 } : { status: 200 }));
    const sub = await subscribeOrdered(`${r.url}/toggle-off`, ['ordered.off'], { maxRetries: 10 });
    await publishSeries(t, account.accountId, 'ordered.off', 6);
    await waitUntil(async () => (await subscriptionOf(api, sub.id)).waitingDeliveries === 5, 20_000, 'five waiting', 20);
    expect(log.arrivals.every((a) => a.n === 0)).toBe(true);
    const off = await api.patch(`/v1/webhooks/${sub.id}`).send({ ordered: false }).expect(200);
    expect(off.body).not.toHaveProperty('waitingDeliveries');
    await r.waitFor(5, 20_000, (q) => numberOf(q) !== 0);
    expect(log.of(0).every((a) => a.status === 503)).toBe(true);
    const pending = (await deliveriesOf(api, sub.id)).filter((row) => row.status === 'pending');
    expect(pending.every((row) => row.waitingFor === undefined)).toBe(true);
    hold = false;
    expect((await waitForFinalDeliveries(api, sub.id, 6, 30_000)).every((row) => row.status === 'delivered')).toBe(true);
  }, 60_000);

  it('keeps test deliveries and a manual retry outside the order', async () => {
    const r = await engine.receiver();
    logArrivals(r, (n) => (n === 0 ? { status: 500 } : { status: 200 }));
    const sub = await subscribeOrdered(`${r.url}/outside`, ['ordered.outside'], { maxRetries: 10 });
    await publishSeries(t, account.accountId, 'ordered.outside', 3);
    await waitUntil(async () => (await subscriptionOf(api, sub.id)).waitingDeliveries === 2, 20_000, 'two waiting', 20);
    // A test delivery goes at once, whatever waits.
    await api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'ordered.outside' }).expect(202);
    await r.waitFor(1, 10_000, (q) => numberOf(q) === -1);
    // A manual retry of the last one sends it now, out of the order.
    const rows = await deliveriesOf(api, sub.id);
    const last = rows.filter((row) => row.waitingFor).sort((a, b) => (a.id < b.id ? 1 : -1))[0];
    await api.post(`/v1/webhooks/${sub.id}/deliveries/${last.id}/retry`).expect(202);
    await waitUntil(
      async () => (await deliveriesOf(api, sub.id)).find((row) => row.id === last.id)?.status === 'delivered',
      10_000,
      'the retried one delivered',
    );
    expect((await subscriptionOf(api, sub.id)).waitingDeliveries).toBe(1);
  }, 40_000);
  it('replays a window on an ordered subscription in order, one at a time, waiting out a retry', async () => {
    const r = await engine.receiver();
    const since = new Date(Date.now() - 1_000).toISOString();
    const sub = await subscribeOrdered(`${r.url}/replay`, ['ordered.replay'], { maxRetries: 5 });
    const live = logArrivals(r, () => ({ status: 200 }));
    await publishSeries(t, account.accountId, 'ordered.replay', 5);
    await r.waitFor(5, 20_000);
    expect((await waitForFinalDeliveries(api, sub.id, 5, 20_000)).every((row) => row.status === 'delivered')).toBe(true);
    expect(orderViolations(live, await feedOrder(api, 'ordered.replay', 5))).toEqual([]);

    // The replay: event 2's first replayed attempt fails; the ones after it wait for its retry.
    const replayed = logArrivals(r, (n, attempt) => (n === 2 && attempt === 0 ? { status: 500 } : { status: 200, delayMs: 20 }));
    const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since }).expect(202);
    await waitUntil(
      async () => (await api.get(`/v1/webhooks/${sub.id}/replays/${started.body.id}`).expect(200)).body.status === 'completed',
      30_000,
      'the replay completed',
    );
    expect((await waitForFinalDeliveries(api, sub.id, 5, 20_000)).every((row) => row.status === 'delivered')).toBe(true);
    expect(replayed.arrivals).toHaveLength(6);
    expect(replayed.maxInFlight()).toBe(1);
    expect(orderViolations(replayed, await feedOrder(api, 'ordered.replay', 5))).toEqual([]);
  }, 60_000);

  it("goes on from each head's record: the statement that records a head claims the next one, no claim of its own", async () => {
    const r = await engine.receiver();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    r.respondWith(async () => {
      // The first head is answered once every delivery of the series is in the database: from then on, each
      // next one's turn has come when the one before it is recorded.
      if (first) {
        first = false;
        await held;
      }
      return { status: 204 };
    });
    const claims = worker.ctx.get(WebhookClaims);
    const claimedInOrder = jest.spyOn(claims, 'claimedInOrder');
    try {
      const sub = await subscribeOrdered(`${r.url}/chain`, ['ordered.chain']);
      await publishSeries(t, account.accountId, 'ordered.chain', 6);
      await r.waitFor(1, 10_000);
      await waitUntil(
        async () => {
          const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]);
          return count === 6;
        },
        10_000,
        'the six deliveries dispatched',
      );
      release();
      await r.waitFor(6, 20_000);
      expect(claimedInOrder).toHaveBeenCalledTimes(5);
    } finally {
      claimedInOrder.mockRestore();
    }
  }, 40_000);
});
