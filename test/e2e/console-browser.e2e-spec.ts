import request from 'supertest';
import { gzipSync } from 'node:zlib';
import type { Page, Response as PageResponse } from 'playwright-core';
import { createAccount } from '../support/app';
import { axeScans, browserLink, ConsoleBrowser, openConsoleBrowser, signInInBrowser } from '../support/console-browser';
import { waitUntil } from '../support/wait';
import { useWebhookEngine } from '../support/webhook-engine';
import { publishEvent } from '../support/webhooks';

/**
 * The account console in a real browser (issue 24, item 7): sign in by link; create a key, use it, revoke
 * it and see the next call refused; a subscription to a local receiver: test event, delivery log, retry,
 * replay; the events feed; refused links; a form without its CSRF token; an axe-core scan of every page
 * (0 serious or critical); 375 px wide, the keyboard, and the first load's weight.
 */
const ENV = {
  REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-console`,
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_SWEEP_INTERVAL_MS: '0',
  WEBHOOK_RETENTION_INTERVAL_MS: '0',
  WEBHOOK_REPLAY_RATE_PER_SECOND: '50',
};
/** Pages scanned with axe-core (every page of the console: the last test checks none was missed). */
const PAGES = [
  'sign-in',
  'overview',
  'keys',
  'key created',
  'revoke confirmation',
  'webhooks',
  'subscription added',
  'subscription',
  'subscription settings',
  'delivery',
  'secret rotated',
  'replay',
  'events',
  'link refused',
  'action refused',
  'signed out',
] as const;
const SCRIPT_AND_STYLE_BUDGET = 150 * 1024;

jest.setTimeout(120_000);

describe('account console in a real browser', () => {
  const engine = useWebhookEngine(ENV);
  let b: ConsoleBrowser;
  let page: Page;
  const { scan, expectEveryPageScanned } = axeScans(PAGES, () => page);

  /** Reloads the page until `text` shows (the delivery log is read when the page is rendered). */
  async function reloadUntil(text: string | RegExp, timeoutMs = 20_000): Promise<void> {
    let shown = '';
    await waitUntil(
      async () => {
        shown = await page.locator('main').innerText();
        if (shown.match(text)) return true;
        await page.reload();
        return false;
      },
      timeoutMs,
      `the page to show ${text}`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${shown}`);
    });
  }

  /** Elements reaching past the viewport's right edge (what would make the page scroll sideways). */
  function overflowing(): Promise<string[]> {
    return page.evaluate(`[
      ...(document.documentElement.scrollWidth > window.innerWidth ? ['document ' + document.documentElement.scrollWidth] : []),
      ...[...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('pre'))
        .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)),
    ]`);
  }

  beforeAll(async () => {
    b = await openConsoleBrowser(engine.started().t);
    page = b.page;
  }, 60_000);

  afterAll(() => b?.close());

  it('signs in by link: the token leaves the address bar and the session cookie is HttpOnly and SameSite=Strict', async () => {
    const { t, account } = engine.started();
    // Without the script the landing page asks for a click (the scan sees it before it goes).
    await page.route('**/console/assets/*.js', (route) => route.abort());
    await page.goto(await browserLink(t, b, account.accountId));
    await scan('sign-in');
    await page.unroute('**/console/assets/*.js');
    await page.getByRole('button', { name: 'Continue to the console' }).click();
    await page.waitForURL(`${b.base}/console`);
    expect(page.url()).not.toContain('token');
    expect(await page.locator('h1').textContent()).toBe('Overview');
    const cookie = (await b.context.cookies()).find((c) => c.name === 'pop_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    await scan('overview');

    // With the script (the usual case) the link goes straight through.
    await signInInBrowser(t, b, account.accountId);
    expect(page.url()).toBe(`${b.base}/console`);
  });

  it('creates a key by keyboard (shown once, copied), uses it against /v1 (200); revokes it after a confirmation and the next call is 401', async () => {
    const { t } = engine.started();
    await page.getByRole('navigation').getByRole('link', { name: 'API and AI assistants' }).click();
    await scan('keys');
    await page.getByLabel(/^Label/).focus();
    await page.keyboard.type('Browser test');
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'Key created' }).waitFor();
    await scan('key created');
    const key = (await page.locator('[data-secret]').textContent())!.trim();
    expect(key).toMatch(/^popk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.locator('[data-copy-status]', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    await request(t.app.getHttpServer()).get('/v1/webhooks').set('x-api-key', key).expect(200);

    await page.getByRole('link', { name: 'Back to the keys' }).click();
    expect(await page.content()).not.toContain(key);
    await page.getByRole('link', { name: 'Revoke Browser test' }).click();
    await scan('revoke confirmation');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('[role=status]', { hasText: 'The key is revoked' }).waitFor();

    const refused = await request(t.app.getHttpServer()).get('/v1/webhooks').set('x-api-key', key).expect(401);
    expect(refused.body.detail).toBe('Missing or invalid x-api-key');
    // The audit list: what, when, from which session.
    const audit = await page.locator('section', { has: page.locator('#audit') }).textContent();
    expect(audit).toMatch(/Key revoked[\s\S]*Browser test[\s\S]*cses_/);
    expect(audit).toContain('Key created');
  });

  it('adds a subscription to a local receiver, sends a test, shows the delivery and its attempt, retries it and replays a window', async () => {
    const { t, account, api } = engine.started();
    const receiver = await engine.receiver();
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await scan('webhooks');
    await page.getByLabel(/^Endpoint URL/).fill(`${receiver.url}/hook`);
    await page.getByLabel(/^Event filters/).fill('property.*, booking.create');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.locator('h1', { hasText: 'Subscription added' }).waitFor();
    expect((await page.locator('[data-secret="signing"]').textContent())!.length).toBeGreaterThan(20);
    await scan('subscription added');
    await page.getByRole('link', { name: 'Go to the subscription' }).click();
    await page.locator('h1', { hasText: 'Subscription' }).waitFor();

    // A test event (from the settings page): the receiver gets it; the log shows the delivery in words.
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await scan('subscription settings');
    await page.getByLabel('Event name').selectOption('property.create');
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor(1, 20_000);
    await reloadUntil(/✓ Delivered/);
    const delivery = page.locator('.delivery').first();
    expect(await delivery.textContent()).toMatch(/property\.create[\s\S]*test[\s\S]*Delivered[\s\S]*HTTP 200/);
    await scan('subscription');

    // Retry it from its page: a second attempt reaches the receiver and the delivery's page.
    await delivery.getByRole('link', { name: /property\.create/ }).click();
    await page.locator('h1', { hasText: 'Delivery' }).waitFor();
    await scan('delivery');
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.locator('[role=status]', { hasText: 'Retry queued' }).waitFor();
    await receiver.waitFor(2, 20_000);
    await reloadUntil(/Attempt 2/);
    expect(await page.locator('.attempt').count()).toBe(2);
    await page.getByRole('link', { name: 'Back to the delivery log' }).click();

    // Disable and enable again.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('.state', { hasText: 'Disabled' }).waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('.state', { hasText: 'Enabled' }).waitFor();

    // Three events reach the receiver; a replay of the window sends them again and the page shows it finish.
    for (let i = 0; i < 3; i++) await publishEvent(t, account.accountId, 'property.create');
    await receiver.waitFor(5, 20_000);
    // A replay reads the event log in feed order, which shows an event once every older transaction has
    // ended (docs/architecture.md): wait until the window holds the three, as a dry run counts them.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const subscriptionId = /\/console\/webhooks\/(sub_[0-9A-Z]{26})/.exec(page.url())![1];
    await waitUntil(
      async () => (await api.post(`/v1/webhooks/${subscriptionId}/replay`).send({ since, dryRun: true }).expect(202)).body.total === 3,
      60_000,
      'the three events in the replay window',
    );
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await page.getByRole('button', { name: 'Start replay' }).click();
    await page.waitForURL(/\/replays\/rpl_/);
    await page.locator('[data-replay-status]', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.facts').textContent()).toMatch(/3 of 3 sent/);
    await scan('replay');
    await receiver.waitFor(8, 20_000);

    // Rotating shows the new secret once.
    await page.getByRole('link', { name: /subscription sub_/ }).click();
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    await page.locator('h1', { hasText: 'Signing secret rotated' }).waitFor();
    await scan('secret rotated');
  });

  it('shows the events feed newest first, filtered by name, each payload readable', async () => {
    const { t, account } = engine.started();
    await publishEvent(t, account.accountId, 'booking.create', [{ id: 'bk_console_newest' }]);
    await page.getByRole('navigation').getByRole('link', { name: 'Events' }).click();
    await scan('events');
    const first = page.locator('.event').first();
    expect(await first.locator('summary').textContent()).toContain('booking.create');
    await first.locator('summary').click();
    expect(await first.locator('pre').textContent()).toContain('"id": "bk_console_newest"');

    await page.getByLabel('Event name').selectOption('property.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/eventName=property\.create/);
    const names = await page.locator('.event summary strong').allTextContents();
    expect(names.length).toBe(3);
    expect(new Set(names)).toEqual(new Set(['property.create']));
  });

  it('refuses a state change without the CSRF token, and creates nothing', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'API and AI assistants' }).click();
    const before = await page.locator('#keys ~ table tbody tr').count();
    await page.locator('form[action="/console/keys"] input[name=_csrf]').evaluate((input) => input.remove());
    await page.getByLabel(/^Label/).fill('No token');
    const [response] = await Promise.all([
      page.waitForResponse((res: PageResponse) => res.url().endsWith('/console/keys') && res.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    expect(response.status()).toBe(403);
    await page.locator('main', { hasText: 'security token' }).waitFor();
    await scan('action refused');
    await page.getByRole('navigation').getByRole('link', { name: 'API and AI assistants' }).click();
    expect(await page.locator('#keys ~ table tbody tr').count()).toBe(before);
  });

  it('works at 375 px wide and by keyboard, within 150 KB of scripts and styles', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ['/console', '/console/keys', '/console/webhooks', '/console/events']) {
      await page.goto(b.base + path);
      expect({ path, overflowing: await overflowing() }).toEqual({ path, overflowing: [] });
      // Every script and stylesheet the page loads (the app's own: the CSP allows nothing else), gzipped.
      const urls: string[] = await page.evaluate(
        "[...document.querySelectorAll('script[src], link[rel=stylesheet]')].map((e) => e.src || e.href)",
      );
      expect(urls.length).toBe(2);
      let total = 0;
      for (const url of urls) total += gzipSync(await (await page.request.get(url)).body()).length;
      expect(total).toBeLessThan(SCRIPT_AND_STYLE_BUDGET);
    }
    // The subscription's page too (its delivery log is the widest content).
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.locator('.card a').first().click();
    expect(await overflowing()).toEqual([]);

    // The keyboard: the first Tab reaches the skip link, which moves focus to the content.
    await page.goto(`${b.base}/console/keys`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('refuses a reused and an expired link with a page saying so', async () => {
    const { t, account, db } = engine.started();
    const link = await browserLink(t, b, account.accountId);
    await page.goto(link);
    await page.waitForURL(`${b.base}/console`);
    const reused = await page.goto(link);
    expect(reused!.status()).toBe(410);
    await page.locator('main', { hasText: 'already been used' }).waitFor();
    await scan('link refused');

    const other = await createAccount(t);
    const expiring = await browserLink(t, b, other.accountId, 1);
    await db.query(`UPDATE console_links SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [other.accountId]);
    const expired = await page.goto(expiring);
    expect(expired!.status()).toBe(410);
    await page.locator('main', { hasText: 'has expired' }).waitFor();
  });

  it('signs out', async () => {
    await page.goto(`${b.base}/console`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('h1', { hasText: 'Signed out' }).waitFor();
    await scan('signed out');
    const after = await page.goto(`${b.base}/console/keys`);
    expect(after!.status()).toBe(401);
  });

  it('scanned every page with axe-core: 0 serious or critical violations', () => expectEveryPageScanned());
});
