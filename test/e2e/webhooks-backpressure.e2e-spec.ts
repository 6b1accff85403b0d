import { DataSource } from 'typeorm';
import { RETRY_AFTER_MAX_MS } from '../../src/modules/webhooks/engine/settlement/webhook-backoff.rules';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { waitUntil } from '../support/wait';
import { deliveriesOf, publishEvent, subscribe, subscriptionOf, waitForFinalDeliveries } from '../support/webhooks';
import { subscriptionRow } from '../support/webhooks-api';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * Receivers that say slow down or that they are gone (issue 13, an extension of the spec): Retry-After
 * on 429/503 sets the next delay (clamped between the schedule and an hour) and counts towards
 * auto-disable once per window; 410 Gone disables the subscription at once.
 */
const ENV = webhookTestEnv('backpressure', QUICK_RETRIES);

describe('webhook back-pressure and gone receivers', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  let names = 0;
  const uniqueEvent = () => `backpressure.e${++names}`;

  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t, db, account, api } = engine.started()));

  it('waits as long as a 429 Retry-After asks before the next attempt', async () => {
    const r = await receiver();
    r.enqueue({ status: 429, headers: { 'retry-after': '2' } });
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/slow-down`, [eventName], 3);
    await publishEvent(t, account.accountId, eventName);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(row.attempts[0]).toMatchObject({ responseCode: 429, retryAfterMs: 2_000 });
    expect(row.attempts[1]).toMatchObject({ responseCode: 200, retryAfterMs: null });
    // The schedule alone would have retried after 100 ms.
    expect(r.requests[1].receivedAt.getTime() - r.requests[0].receivedAt.getTime()).toBeGreaterThanOrEqual(1_900);
  });

  it('clamps Retry-After: never sooner than the schedule, never later than an hour (503 too)', async () => {
    const r = await receiver();
    r.enqueue({ status: 503, headers: { 'retry-after': '0' } }, { status: 503, headers: { 'retry-after': '86400' } });
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/clamped`, [eventName], 5);
    await publishEvent(t, account.accountId, eventName);
    const row = await waitUntil(
      async () => {
        const [delivery] = await deliveriesOf(api, sub.id);
        return delivery?.attemptCount === 2 ? delivery : undefined;
      },
      10_000,
      'two attempts',
    );
    expect(row.attempts[0]).toMatchObject({ responseCode: 503, retryAfterMs: 100 });
    expect(row.attempts[1]).toMatchObject({ responseCode: 503, retryAfterMs: RETRY_AFTER_MAX_MS });
    expect(row.status).toBe('pending');
    expect(Date.parse(row.nextRetryAt) - Date.parse(row.lastAttemptAt)).toBeGreaterThanOrEqual(RETRY_AFTER_MAX_MS - 1_000);
    expect(Date.parse(row.nextRetryAt) - Date.parse(row.lastAttemptAt)).toBeLessThanOrEqual(RETRY_AFTER_MAX_MS + 1_000);
  });

  it('counts permanent failures answered with Retry-After towards auto-disable once per window', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/throttled`, [eventName], 0);
    for (let i = 0; i < 4; i++) await publishEvent(t, account.accountId, eventName);
    const rows = await waitForFinalDeliveries(api, sub.id, 4);
    expect(rows.every((row) => row.status === 'failed_permanent')).toBe(true);
    const stored = await subscriptionRow(db, sub.id);
    expect(stored.consecutive_failures).toBe(1);
    expect(stored.enabled).toBe(true);
    expect(stored.backpressure_until.getTime()).toBeGreaterThan(Date.now() + 500_000);

    // A failure without Retry-After counts as it always did.
    r.respondWith(() => ({ status: 500 }));
    await publishEvent(t, account.accountId, eventName);
    await waitForFinalDeliveries(api, sub.id, 5);
    expect((await subscriptionRow(db, sub.id)).consecutive_failures).toBe(2);
  });

  it('disables the subscription at once on 410 Gone, recorded in the log; a test delivery answered 410 does not', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 410, body: 'gone for good' }));
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/gone`, [eventName], 5);

    await api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName }).expect(202);
    const [testRow] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(testRow).toMatchObject({ test: true, status: 'failed_permanent', attemptCount: 1 });
    expect(await subscriptionOf(api, sub.id)).toMatchObject({ enabled: true });

    await publishEvent(t, account.accountId, eventName);
    const [row] = await waitForFinalDeliveries(api, sub.id, 2);
    expect(row).toMatchObject({ test: false, status: 'failed_permanent', attemptCount: 1, nextRetryAt: null });
    expect(row.attempts[0]).toMatchObject({
      responseCode: 410,
      responseSnippet: 'gone for good',
      errorMessage: 'non-2xx response (HTTP 410): the receiver is gone, subscription disabled',
    });
    expect(await subscriptionOf(api, sub.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(r.requests).toHaveLength(2);

    // Re-enabling clears the reason, as for any disabled subscription.
    const enabled = await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: true }).expect(200);
    expect(enabled.body.disabledReason).toBeUndefined();
  });
});
