import { DataSource } from 'typeorm';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { publishUnchecked } from '../support/events';
import { subscriptionRow } from '../support/webhooks-api';
import { ReceivedRequest } from '../support/webhook-receiver';
import { subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { waitUntil } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * The engine's batches (issue 23): a subscription's due attempts are claimed together, POSTed within its
 * concurrency, and recorded together. A fan-out reaches every subscription once, first attempts starting
 * in event order; the outcomes of one batch each settle as the rules say.
 */
// Long enough for a loaded machine (the receivers share the test process), short enough for the time-out case.
const WEBHOOK_TIMEOUT_MS = 10_000;
const ENV = webhookTestEnv('batches', { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS) });

describe('webhook batches', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  const engine = useWebhookEngine(ENV);
  beforeAll(() => ({ t, db, account, api } = engine.started()));

  /** Publishes `count` events of `eventName` in transactions of `perTransaction`, results `[{n}]`; their ids in order. */
  async function publishMany(eventName: string, count: number, perTransaction: number): Promise<string[]> {
    const ids: string[] = [];
    for (let n = 0; n < count;) {
      const ctx = { accountId: account.accountId, requestId: `req_batch_${n}`, clientRequestId: `client_batch_${n}` };
      const size = Math.min(perTransaction, count - n);
      const first = n;
      n += size;
      const events = await t.app.get(UnitOfWork).run(ctx, async (tx) => {
        const published = [];
        for (let i = 0; i < size; i++) published.push(await publishUnchecked(t.app.get(EventsService), tx, eventName, [{ n: first + i }]));
        return published;
      });
      ids.push(...events.map((event) => event.id));
    }
    return ids;
  }

  const numberOf = (request: ReceivedRequest): number => JSON.parse(request.rawBody).results[0].n;

  it('fans many events out to several subscriptions: each delivered once, first attempts starting in event order', async () => {
    const receivers = await Promise.all([1, 2, 3].map(() => engine.receiver()));
    const subs = await Promise.all(receivers.map((r, i) => subscribe(api, `${r.url}/fanout-${i}`, ['batch.fanout'])));
    const count = 150;
    await publishMany('batch.fanout', count, 20);

    for (const [i, r] of receivers.entries()) {
      // (More than a page of the delivery log: counted in the table.)
      const final = await waitUntil(
        async () => {
          const [row] = await db.query(
            `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'delivered' AND attempt_count = 1)::int AS delivered
               FROM webhook_deliveries WHERE account_id = $1 AND subscription_id = $2 AND status <> 'pending'`,
            [account.accountId, subs[i].id],
          );
          return row.n === count ? row : undefined;
        },
        30_000,
        `${count} final deliveries of ${subs[i].id}`,
      );
      const odd = await db.query(
        `SELECT status, attempt_count, attempts FROM webhook_deliveries WHERE subscription_id = $1 AND NOT (status = 'delivered' AND attempt_count = 1) LIMIT 3`,
        [subs[i].id],
      );
      expect(odd).toEqual([]);
      expect(final.delivered).toBe(count);
      // Each event once, first attempts only.
      expect(r.requests.map(numberOf).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, n) => n));
      expect(r.requests.every((q) => q.headers['webhook-retry-count'] === '0')).toBe(true);
      // Started in order: the loop issues the POSTs in delivery id order (dispatch mints the ids in event order
      // within each of its transactions, webhook-dispatch.rules), and each attempt's notifiedAt is stamped after
      // the URL re-check, which the attempts of one URL share (they resume in the order they arrived).
      const deliveryId = (q: ReceivedRequest) => q.headers['webhook-id'] as string;
      const byDeliveryId = [...r.requests].sort((a, b) => (deliveryId(a) < deliveryId(b) ? -1 : 1));
      const startedAt = byDeliveryId.map((q) => Date.parse(JSON.parse(q.rawBody).notifiedAt));
      for (let n = 1; n < count; n++) expect(startedAt[n]).toBeGreaterThanOrEqual(startedAt[n - 1]);
    }
  }, 90_000);

  it('settles mixed outcomes within one batch as the rules say: 2xx, 500, time-out, 429 with Retry-After, 410', async () => {
    const r = await engine.receiver();
    // By event: 0 → 200, 1 → 500, 2 → no answer in time, 3 → 429 Retry-After 1 s, 4 → 410 Gone.
    r.respondWith((request) => {
      const n = numberOf(request);
      if (n === 1) return { status: 500, body: 'boom' };
      if (n === 2) return { status: 200, delayMs: WEBHOOK_TIMEOUT_MS + 500 };
      if (n === 3) return { status: 429, headers: { 'retry-after': '1' } };
      if (n === 4) return { status: 410 };
      return { status: 200 };
    });
    // No retries: each attempt is its delivery's last, so each counts (or not) at once.
    const sub = await subscribe(api, `${r.url}/mixed`, ['batch.mixed'], 0);
    // One transaction: the five deliveries are due together and claimed in one batch.
    await publishMany('batch.mixed', 5, 5);

    const rows = await waitForFinalDeliveries(api, sub.id, 5, 40_000);
    const numberOfDelivery = new Map(r.requests.map((q) => [q.headers['webhook-id'], numberOf(q)]));
    const byNumber = new Map(rows.map((row) => [numberOfDelivery.get(row.id), row]));
    expect(byNumber.get(0)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(byNumber.get(1)).toMatchObject({ status: 'failed_permanent', attemptCount: 1 });
    expect(byNumber.get(1)!.attempts[0]).toMatchObject({
      responseCode: 500,
      responseSnippet: 'boom',
      errorMessage: 'non-2xx response (HTTP 500)',
    });
    expect(byNumber.get(2)!.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'timeout' });
    expect(byNumber.get(2)!.attempts[0].errorMessage).toMatch(/^timed out after/);
    // Retry-After on the last attempt: shown as the delay it would have set (schedule 100 ms < 1 s).
    expect(byNumber.get(3)!.attempts[0]).toMatchObject({ responseCode: 429, retryAfterMs: 1000 });
    expect(byNumber.get(4)!.attempts[0]).toMatchObject({
      responseCode: 410,
      errorMessage: 'non-2xx response (HTTP 410): the receiver is gone, subscription disabled',
    });
    for (const n of [1, 2, 3, 4]) expect(byNumber.get(n)!.status).toBe('failed_permanent');
    // Every attempt once.
    expect(r.requests).toHaveLength(5);
    // The 410 disabled the subscription. Every permanent failure counted: the 500, the time-out and the 410,
    // and the 429, the only answer with Retry-After, which opened the back-pressure window.
    const row = await subscriptionRow(db, sub.id);
    expect(row).toMatchObject({ enabled: false, disabled_reason: 'gone', consecutive_failures: 4 });
    expect(row.backpressure_until).not.toBeNull();
  }, 60_000);

  it('counts a batch of failures answered with Retry-After once per back-pressure window, however they interleave', async () => {
    const r = await engine.receiver();
    r.respondWith(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const sub = await subscribe(api, `${r.url}/throttled-batch`, ['batch.throttled'], 0);
    // One transaction: the six are claimed together, POSTed at once and recorded concurrently.
    await publishMany('batch.throttled', 6, 6);
    const rows = await waitForFinalDeliveries(api, sub.id, 6, 20_000);
    expect(rows.every((row) => row.status === 'failed_permanent')).toBe(true);
    expect(await subscriptionRow(db, sub.id)).toMatchObject({ enabled: true, consecutive_failures: 1 });
  }, 60_000);
});
