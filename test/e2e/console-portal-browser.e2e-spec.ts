import type { Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { WebhookSubscriptionsService } from '../../src/modules/webhooks/subscriptions/webhook-subscriptions.service';
import { axeScans, ConsoleBrowser, openConsoleBrowser, signInInBrowser } from '../support/console-browser';
import { occurrences } from '../support/console-pages';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/wait';
import { deliveriesOf, publishEvent, signatureValues, verifiesV1a } from '../support/webhooks';
import { createSubscription } from '../support/webhooks-api';

/**
 * The portal in a real browser (issue 34): every form does its work once (the same body posted again, a
 * real reload of its result), the values to copy (whsec_ secret, public key, a payload) verify real
 * deliveries, unknown filters said once each, 375 px (stacked tables, whole ids), and axe on every new page.
 */
const PAGES = [
  'key already shown',
  'webhooks refused',
  'secret with public key',
  'secret already shown',
  'subscription with public key',
  'delivery with requests',
  'settings',
  'replay of an empty window',
  'delete confirmation',
  'ordered subscription with deliveries waiting',
  'waiting delivery at 375 px',
] as const;

jest.setTimeout(120_000);

describe('webhook portal in a real browser', () => {
  const engine = useWebhookEngine(webhookTestEnv('console-portal-browser', QUICK_RETRIES));
  let b: ConsoleBrowser;
  let page: Page;
  let receiver: WebhookReceiver;
  let subscriptionId: string;
  const { scan, expectEveryPageScanned } = axeScans(PAGES, () => page);

  const count = async (sql: string, ...params: unknown[]): Promise<number> => (await engine.started().db.query(sql, params))[0].n as number;

  /**
   * Submits `form` with `submit` as a person does (303, then its result page), posts the very same body
   * again (a resent form: 303 to the same result, nothing done), then reloads the result page for real.
   * Returns the result's status on reload.
   */
  async function submitTwice(form: Locator, submit: () => Promise<void>): Promise<number> {
    const action = (await form.getAttribute('action'))!;
    // (The page's own globals, typed here: the test project has no DOM library.)
    const fields = await form.evaluate((f) => {
      const { FormData } = globalThis as unknown as { FormData: new (form: unknown) => Iterable<[string, unknown]> };
      return Object.fromEntries([...new FormData(f)].map(([name, value]) => [name, String(value)]));
    });
    const [response] = await Promise.all([
      page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === action),
      submit(),
    ]);
    expect({ action, status: response.status() }).toEqual({ action, status: 303 });
    const location = response.headers().location;
    await page.waitForURL((url) => url.pathname + url.search === location);
    const again = await page.request.post(b.base + action, { form: fields, maxRedirects: 0 });
    expect({ action, status: again.status(), location: again.headers().location }).toEqual({ action, status: 303, location });
    return (await page.reload())!.status();
  }

  async function clipboardAfter(button: Locator): Promise<string> {
    await button.click();
    await button.locator('xpath=..').locator('[data-copy-status]', { hasText: 'Copied.' }).waitFor();
    return page.evaluate('navigator.clipboard.readText()');
  }

  beforeAll(async () => {
    b = await openConsoleBrowser(engine.started().t);
    page = b.page;
    receiver = await engine.receiver();
    await signInInBrowser(engine.started().t, b, engine.started().account.accountId);
  }, 60_000);

  afterAll(() => b?.close());

  it('creates and revokes a key once per form, and a reload of its page shows it no more', async () => {
    const { account } = engine.started();
    const keys = () => count(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1`, account.accountId);
    const before = await keys();
    await page.goto(`${b.base}/console/keys`);
    await page.getByLabel(/^Label/).fill('Posted twice');
    const form = page.locator('form[action="/console/keys"]');
    expect(await submitTwice(form, () => page.getByRole('button', { name: 'Create key' }).click())).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('Key already shown');
    await scan('key already shown');
    expect(await keys()).toBe(before + 1);

    await page.goto(`${b.base}/console/keys`);
    await page.getByRole('link', { name: 'Revoke Posted twice' }).click();
    const revoke = page.locator('form[action$="/revoke"]');
    expect(await submitTwice(revoke, () => page.getByRole('button', { name: 'Revoke key' }).click())).toBe(200);
    const audit = await engine
      .started()
      .db.query(`SELECT action FROM console_audit WHERE account_id = $1 ORDER BY id`, [account.accountId]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['key.created', 'key.revoked']);
  });

  it('flags unknown event filters once each, then adds one subscription from a form posted twice', async () => {
    const { account } = engine.started();
    const subscriptions = () => count(`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE account_id = $1`, account.accountId);
    await page.goto(`${b.base}/console/webhooks`);
    await page.getByLabel(/^Endpoint URL/).fill(`${receiver.url}/portal`);
    await page.getByLabel(/^Event filters/).fill('booking.nonsense, ???');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const refusal = (await page.locator('[role=alert]').innerText()).replace(/\s+/g, ' ');
    expect(occurrences(refusal, 'Event filter "booking.nonsense" names no event')).toBe(1);
    expect(occurrences(refusal, 'Event filter "???" is not a filter')).toBe(1);
    await scan('webhooks refused');
    expect(await subscriptions()).toBe(0);

    await page.getByLabel(/^Event filters/).fill('booking.*');
    const form = page.locator('form[action="/console/webhooks"]');
    // The first answer is followed to the secret's page, so the reload finds the secret shown already.
    expect(await submitTwice(form, () => page.getByRole('button', { name: 'Add subscription' }).click())).toBe(410);
    expect(await subscriptions()).toBe(1);
  });

  it('shows the secret once, as whsec_ for Standard Webhooks libraries and with the public key, each copied exactly', async () => {
    const { t, account } = engine.started();
    await page.goto(`${b.base}/console/webhooks`);
    await page.getByLabel(/^Endpoint URL/).fill(`${receiver.url}/portal-v1a`);
    await page.getByLabel(/^Event filters/).fill('property.create');
    await page.getByLabel(/Also sign with v1a/).check();
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.locator('h1', { hasText: 'Subscription added' }).waitFor();
    await scan('secret with public key');
    const whsec = await clipboardAfter(page.getByRole('button', { name: 'Copy whsec_ secret' }));
    const publicKey = await clipboardAfter(page.getByRole('button', { name: 'Copy public key' }));
    expect(whsec).toMatch(/^whsec_/);
    subscriptionId = /\/console\/webhooks\/(sub_[0-9A-Z]{26})\//.exec(page.url())![1];

    await page.reload();
    expect(await page.locator('h1').textContent()).toBe('Secret already shown');
    expect(await page.content()).not.toContain(whsec);
    await scan('secret already shown');

    await publishEvent(t, account.accountId, 'property.create', [{ propertyId: 'prop_portal' }]);
    const [delivery] = await receiver.waitFor(1, 20_000, (r) => r.path === '/portal-v1a');
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(whsec).verify(delivery.rawBody, headers)).toMatchObject({ eventName: 'property.create' });
    expect(verifiesV1a(delivery, signatureValues(delivery, 'v1a')[0], publicKey)).toBe(true);

    await page.getByRole('link', { name: 'Go to the subscription' }).click();
    expect(await clipboardAfter(page.getByRole('button', { name: 'Copy public key' }))).toBe(publicKey);
    await scan('subscription with public key');
  });

  it('shows each attempt’s request: the copied payload is the body the receiver got', async () => {
    const [delivery] = receiver.requests.filter((r) => r.path === '/portal-v1a');
    await page.goto(`${b.base}/console/webhooks/${subscriptionId}`);
    await page.locator('.delivery a').first().click();
    await page.locator('summary', { hasText: 'Request headers and payload' }).first().click();
    expect(await clipboardAfter(page.getByRole('button', { name: 'Copy payload' }).first())).toBe(delivery.rawBody);
    const headers = await clipboardAfter(page.getByRole('button', { name: 'Copy headers' }).first());
    expect(headers).toContain(`webhook-id: ${String(delivery.headers['webhook-id'])}`);
    expect(headers).toContain(`webhook-timestamp: ${String(delivery.headers['webhook-timestamp'])}`);
    await scan('delivery with requests');
  });

  it('changes a subscription once per form: edit, disable, enable, test, retry, replay, rotate, delete', async () => {
    const { db } = engine.started();
    const base = `${b.base}/console/webhooks/${subscriptionId}`;
    const row = async () => (await db.query(`SELECT * FROM webhook_subscriptions WHERE id = $1`, [subscriptionId]))[0];
    const of = (action: string) => page.locator(`form[action="/console/webhooks/${subscriptionId}${action}"]`);

    await page.goto(`${base}/settings`);
    await scan('settings');
    await page.getByLabel(/^Event filters/).fill('property.*');
    await submitTwice(of(''), () => page.getByRole('button', { name: 'Save changes' }).click());
    expect((await row()).event_filters).toEqual(['property.*']);

    for (const button of ['Disable', 'Enable']) {
      await submitTwice(of('/enabled'), () => page.getByRole('button', { name: button }).click());
      expect((await row()).enabled).toBe(button === 'Enable');
    }

    const deliveries = () => count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`, subscriptionId);
    const before = await deliveries();
    await page.goto(`${base}/settings`);
    await submitTwice(of('/test'), () => page.getByRole('button', { name: 'Send test' }).click());
    expect(await deliveries()).toBe(before + 1);

    // Retried once it is recorded (a retry while an attempt is in flight is refused, 409).
    await waitUntil(
      async () =>
        (await db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 AND test AND status = 'delivered'`, [subscriptionId]))
          .length === 1,
      20_000,
      'the test delivery delivered',
    );
    const retries = jest.spyOn(engine.started().t.app.get(WebhookSubscriptionsService), 'retryDelivery');
    try {
      await page.reload();
      await page.locator('.delivery a').first().click();
      await submitTwice(page.locator('form[action$="/retry"]'), () => page.getByRole('button', { name: 'Retry now' }).click());
      expect(retries).toHaveBeenCalledTimes(1);
    } finally {
      retries.mockRestore();
    }

    await page.goto(`${base}/settings`);
    // A window before the account existed: no event in it.
    await page.getByLabel('Since (UTC)').fill(new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 16));
    await page.getByLabel(/^Until \(UTC/).fill(new Date(Date.now() - 2 * 3_600_000).toISOString().slice(0, 16));
    await submitTwice(of('/replay'), () => page.getByRole('button', { name: 'Start replay' }).click());
    expect(await count(`SELECT count(*)::int AS n FROM webhook_replays WHERE subscription_id = $1`, subscriptionId)).toBe(1);
    await page.locator('[data-replay-status="completed"]').waitFor();
    expect(await page.locator('[data-replay-empty]').count()).toBe(1);
    expect(await page.locator('progress').count()).toBe(0);
    await scan('replay of an empty window');

    await page.goto(`${base}/settings`);
    const { signing_secret: original } = await row();
    expect(await submitTwice(of('/rotate'), () => page.getByRole('button', { name: 'Rotate signing secret' }).click())).toBe(410);
    expect((await row()).previous_secret).toBe(original);

    await page.goto(`${base}/settings`);
    await page.getByRole('link', { name: 'Delete subscription…' }).click();
    await scan('delete confirmation');
    await submitTwice(of('/delete'), () => page.getByRole('button', { name: 'Delete subscription' }).click());
    expect(await row()).toBeUndefined();
    await page.locator('[role=status]', { hasText: 'The subscription is deleted' }).waitFor();
  });

  it('at 375 px: the keys table stacks each row with its columns named, and no id breaks', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await page.goto(`${b.base}/console/keys`);
      const cells = page.locator('table.stacked').first().locator('tbody tr').first().locator('td');
      const labels = await cells.evaluateAll((tds) => {
        const { getComputedStyle } = globalThis as unknown as { getComputedStyle(element: unknown, pseudo: string): { content: string } };
        return tds.map((td) => getComputedStyle(td, '::before').content);
      });
      expect(labels).toEqual(['"Label"', '"Key id"', '"Ends with"', '"Created"', '"Last used"', '"Kind"', '"Status"']);
      const rights = await cells.evaluateAll((tds) => tds.map((td) => td.getBoundingClientRect().right));
      for (const right of rights) expect(right).toBeLessThanOrEqual(375);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      const ids = await page
        .locator('code.id')
        .evaluateAll((codes) => codes.map((code) => ({ text: code.textContent, lines: code.getClientRects().length })));
      expect(ids.length).toBeGreaterThan(1);
      expect(ids.filter((id) => id.lines !== 1)).toEqual([]);

      // A subscription's page and its delivery log: nothing past the edge, every id whole.
      await page.goto(`${b.base}/console/webhooks`);
      await page.locator('.card a').first().click();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      const subscriptionIds = await page.locator('code.id').evaluateAll((codes) => codes.map((code) => code.getClientRects().length));
      expect(subscriptionIds.length).toBeGreaterThan(0);
      expect(subscriptionIds.filter((lines) => lines !== 1)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('an ordered subscription names the head its waiting deliveries wait for, linked, at 1280 and 375 px (issue 41)', async () => {
    const { t, account, api } = engine.started();
    const stuck = await engine.receiver();
    stuck.respondWith(() => ({ status: 503, body: 'busy' }));
    const sub = await createSubscription(api, {
      url: `${stuck.url}/ordered`,
      eventFilters: ['reminder.delete'],
      ordered: true,
      maxRetries: 10,
    });
    for (let n = 0; n < 3; n++) await publishEvent(t, account.accountId, 'reminder.delete');
    const head = await waitUntil(
      async () => {
        const rows = await deliveriesOf(api, sub.id);
        const waiting = rows.filter((row) => row.waitingFor);
        return waiting.length === 2 ? (waiting[0].waitingFor as string) : undefined;
      },
      20_000,
      'two deliveries waiting',
    );
    await page.goto(`${b.base}/console/webhooks/${sub.id}`);
    await scan('ordered subscription with deliveries waiting');
    // A waiting delivery's link goes to the head's page.
    const waiting = page.locator('.delivery', { hasText: 'Waiting for' });
    expect(await waiting.count()).toBe(2);
    const waitingId = (await waiting.first().getAttribute('data-delivery'))!;
    await waiting.first().getByRole('link', { name: head }).click();
    await page.waitForURL((url) => url.pathname === `/console/webhooks/${sub.id}/deliveries/${head}`);

    await page.setViewportSize({ width: 375, height: 800 });
    try {
      for (const path of [`/console/webhooks/${sub.id}`, `/console/webhooks/${sub.id}/deliveries/${waitingId}`]) {
        await page.goto(`${b.base}${path}`);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
        const ids = await page.locator('code.id').evaluateAll((codes) => codes.map((code) => code.getClientRects().length));
        expect(ids.filter((lines) => lines !== 1)).toEqual([]);
      }
      await scan('waiting delivery at 375 px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await api.delete(`/v1/webhooks/${sub.id}`).expect(204);
    }
  });

  it('scanned every new page with axe-core: 0 serious or critical violations', () => expectEveryPageScanned());
});
