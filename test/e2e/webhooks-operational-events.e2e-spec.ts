import { ApiClient, clientFor, createAccount, TestAccount, TestApp } from '../support/app';
import { feedEvents } from '../support/events';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishEvent, subscribe, subscriptionOf, waitForFinalDeliveries } from '../support/webhooks';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * Operational events (issue 13, an extension of the spec): webhook.disabled (reason, last failures) and
 * webhook.recovered reach the account's feed and its other subscriptions, never the subscription they
 * are about.
 */
const ENV = webhookTestEnv('operational', QUICK_RETRIES);

describe('webhook operational events', () => {
  let t: TestApp;
  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t } = engine.started()));

  /** A fresh account with a failing subscription to everything and a watcher subscribed to webhook.* only. */
  async function setup(): Promise<{ account: TestAccount; api: ApiClient; dark: WebhookReceiver; watcher: WebhookReceiver }> {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    return { account, api, dark: await receiver(), watcher: await receiver() };
  }

  it('410 Gone: webhook.disabled in the feed and to the other subscriptions; re-enabled and delivering: webhook.recovered', async () => {
    const { account, api, dark, watcher } = await setup();
    dark.respondWith(() => ({ status: 410 }));
    const sub = await subscribe(api, `${dark.url}/all`, ['*'], 3);
    const other = await subscribe(api, `${watcher.url}/ops`, ['webhook.*']);

    const failed = await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 1);
    expect(await subscriptionOf(api, sub.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });

    const [disabledDelivery] = await watcher.waitFor(1);
    const disabled = JSON.parse(disabledDelivery.rawBody);
    expect(disabled).toMatchObject({
      eventName: 'webhook.disabled',
      clientRequestId: sub.id,
      targetAccountId: account.accountId,
      results: [
        {
          subscriptionId: sub.id,
          url: `${dark.url}/all`,
          reason: 'gone',
          disabledAt: expect.any(String),
          lastFailures: [{ eventId: failed.id, eventName: 'property.create', responseCode: 410, errorClass: null }],
        },
      ],
    });
    const feed = await feedEvents(api, { until: (events) => events.some((e) => e.eventName === 'webhook.disabled') });
    expect(feed.find((e) => e.eventName === 'webhook.disabled')!.results).toEqual(disabled.results);

    // Back: re-enabled, the next delivery gets through and the account hears of it once.
    dark.respondWith(() => ({ status: 200 }));
    await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: true }).expect(200);
    await publishEvent(t, account.accountId, 'property.create');
    await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 3);
    const [, recoveredDelivery] = await watcher.waitFor(2);
    const recovered = JSON.parse(recoveredDelivery.rawBody);
    expect(recovered).toMatchObject({
      eventName: 'webhook.recovered',
      clientRequestId: sub.id,
      results: [{ subscriptionId: sub.id, url: `${dark.url}/all`, darkSince: expect.any(String), recoveredAt: expect.any(String) }],
    });
    const after = await feedEvents(api, { until: (events) => events.some((e) => e.eventName === 'webhook.recovered') });
    expect(after.filter((e) => e.eventName.startsWith('webhook.')).map((e) => e.eventName)).toEqual([
      'webhook.disabled',
      'webhook.recovered',
    ]);

    // The subscription they are about never got them, though its filter (*) matches them.
    const names = dark.requests.map((q) => JSON.parse(q.rawBody).eventName);
    expect(names).toEqual(['property.create', 'property.create', 'property.create']);
    const rows = await waitForFinalDeliveries(api, sub.id, 3);
    expect(rows.map((row) => row.eventName)).not.toContain('webhook.recovered');
    expect(watcher.requests).toHaveLength(2);
    expect(other.id).toBeDefined();
  });

  it('auto-disable after 10 failed deliveries: webhook.disabled with the reason and the last five failures', async () => {
    const { account, api, dark } = await setup();
    dark.respondWith(() => ({ status: 500, body: 'down' }));
    const sub = await subscribe(api, `${dark.url}/failing`, ['property.*'], 0);
    for (let i = 0; i < 10; i++) await publishEvent(t, account.accountId, 'property.create');
    await waitForFinalDeliveries(api, sub.id, 10);
    expect(await subscriptionOf(api, sub.id)).toMatchObject({
      enabled: false,
      disabledReason: 'auto_disabled_after_repeated_delivery_failures',
    });

    const feed = await feedEvents(api, { until: (events) => events.some((e) => e.eventName === 'webhook.disabled') });
    const disabled = feed.filter((e) => e.eventName === 'webhook.disabled');
    expect(disabled).toHaveLength(1);
    const [result] = disabled[0].results;
    expect(result).toMatchObject({ subscriptionId: sub.id, reason: 'auto_disabled_after_repeated_delivery_failures' });
    expect(result.lastFailures).toHaveLength(5);
    for (const failure of result.lastFailures) {
      expect(failure).toMatchObject({ eventName: 'property.create', responseCode: 500, errorMessage: 'non-2xx response (HTTP 500)' });
    }
  });
});
