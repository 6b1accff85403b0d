import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createAccount } from '../support/app';
import { browserLink, ConsoleBrowser, openConsoleBrowser, signInInBrowser } from '../support/console-browser';
import { waitUntil } from '../support/wait';
import { useWebhookEngine } from '../support/webhook-engine';
import { publishEvent } from '../support/webhooks';

/**
 * Refreshes the console's screenshots in docs/console.md (`npm run docs:screenshots`): the real app,
 * worker and a local receiver on the test harness's database, each page at 1024 px and the keys and
 * subscription pages at 375 px. Not part of `npm test` (committed pictures change only when this is run).
 */
const IMAGES = join(__dirname, '..', '..', 'docs', 'images');
const ENV = {
  REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-console-shots`,
  WEBHOOK_SWEEP_INTERVAL_MS: '0',
  WEBHOOK_RETRY_BASE_MS: '200',
};

jest.setTimeout(180_000);

describe('console screenshots', () => {
  const engine = useWebhookEngine(ENV);
  let b: ConsoleBrowser;
  let page: Page;

  const shot = (name: string) => page.screenshot({ path: join(IMAGES, `console-${name}.png`), fullPage: true });
  const narrow = async (name: string) => {
    await page.setViewportSize({ width: 375, height: 720 });
    await shot(name);
    await page.setViewportSize({ width: 1024, height: 720 });
  };

  beforeAll(async () => {
    b = await openConsoleBrowser(engine.started().t);
    page = b.page;
    await page.setViewportSize({ width: 1024, height: 720 });
  });

  afterAll(() => b?.close());

  it('takes one of each page', async () => {
    const { t, account, db } = engine.started();
    await db.query(`UPDATE accounts SET name = 'Seaside Rentals' WHERE id = $1`, [account.accountId]);
    await signInInBrowser(t, b, account.accountId);
    await shot('overview');

    await page.getByRole('navigation').getByRole('link', { name: 'API and AI assistants' }).click();
    for (const label of ['Channel manager', 'AI assistant']) {
      await page.getByLabel(/^Label/).fill(label);
      await page.getByRole('button', { name: 'Create key' }).click();
      if (label === 'AI assistant') await shot('key-created');
      await page.getByRole('link', { name: 'Back to the keys' }).click();
    }
    await page.getByRole('link', { name: 'Revoke Channel manager' }).click();
    await shot('revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await shot('keys');
    await narrow('keys-375');

    const receiver = await engine.receiver();
    receiver.respondWith((_req, i) => (i === 1 ? { status: 503, body: 'Service Unavailable: maintenance' } : { status: 200, body: 'ok' }));
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel(/^Endpoint URL/).fill(`${receiver.url}/webhooks/pop`);
    await page.getByLabel(/^Event filters/).fill('booking.nonsense, jobRequest.*');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await shot('filters-refused');
    await page.getByLabel(/^Event filters/).fill('booking.*, jobRequest.*');
    await page.getByLabel(/Also sign with v1a/).check();
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await shot('secret');
    await page.getByRole('link', { name: 'Go to the subscription' }).click();
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await shot('settings');
    await page.getByLabel('Event name').selectOption('booking.create');
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor(1, 20_000);
    await publishEvent(t, account.accountId, 'booking.create', [{ id: 'bk_01KBX2Q9R1', status: 1, guest: { name: 'A. Guest' } }]);
    await receiver.waitFor(3, 20_000);
    // The retry is recorded once its answer is: wait for the log to show it delivered.
    await waitUntil(
      async () => {
        await page.reload();
        return (await page.locator('.delivery').first().textContent())?.includes('Delivered');
      },
      20_000,
      'the retried delivery in the log',
    );
    await shot('subscription');
    await narrow('subscription-375');

    await page.locator('.delivery a').first().click();
    for (const summary of await page.locator('summary').all()) await summary.click();
    await shot('delivery');

    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await shot('webhooks');

    await page.getByRole('navigation').getByRole('link', { name: 'Events' }).click();
    await page.locator('.event summary').first().click();
    await shot('events');

    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.locator('.card a').first().click();
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await page.getByRole('button', { name: 'Start replay' }).click();
    await page.waitForURL(/\/replays\//);
    await page.locator('[data-replay-status="completed"]').waitFor();
    await shot('replay');

    await page.getByRole('link', { name: /subscription sub_/ }).click();
    await page.getByRole('link', { name: 'Settings, test event and replay' }).click();
    await page.getByRole('link', { name: 'Delete subscription…' }).click();
    await shot('delete');

    const other = await createAccount(t);
    const link = await browserLink(t, b, other.accountId);
    await page.goto(link);
    await page.goto(link);
    await shot('link-refused');
  });

  it('takes the test mode pages', async () => {
    const { t, db } = engine.started();
    const account = await createAccount(t, { name: 'Seaside Rentals' });
    await db.query(`UPDATE accounts SET name = 'Seaside Rentals' WHERE id = $1`, [account.accountId]);
    await signInInBrowser(t, b, account.accountId);
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'API and AI assistants' }).click();
    await page.getByLabel(/^Label/).fill('Staging integration');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('link', { name: 'Back to the keys' }).click();
    await shot('test-mode-keys');
    await page.getByRole('link', { name: 'Clear test data…' }).click();
    await shot('test-mode-reset');
  });
});
