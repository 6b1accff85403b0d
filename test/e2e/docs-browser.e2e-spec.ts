import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { CHROMIUM_ARGS, testPrerequisites } from '../support/prerequisites';

/**
 * Each run saves its screenshot beside the committed one, under a git-ignored name, so runs leave the
 * tree clean; copy it over `api-reference.png` when the reference changes visibly.
 */
const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'api-reference.latest.png');

describe('API reference at /docs in a real browser', () => {
  let t: TestApp;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    // The headless Chromium the test command obtained (scripts/test-prerequisites.js).
    const { chromium: executablePath } = testPrerequisites();
    t = await startApp();
    profile = mkdtempSync(join(tmpdir(), 'pop-docs-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: CHROMIUM_ARGS,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.close();
  });

  it('renders every route of the document from the package files (no CDN) and saves a screenshot', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(base) && !req.url().startsWith('data:')) outside.push(req.url());
    });

    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent} ${b.querySelector('.opblock-summary-path, .opblock-summary-path__deprecated')?.getAttribute('data-path')}`,
      ),
    );
    // Every route (deprecated ones, the legacy API's, struck through), and every webhook (Swagger UI lists them as POST <event name>).
    const doc = (await t.http.get('/v1/openapi.json')).body as { paths: Record<string, object>; webhooks: Record<string, object> };
    const documented: string[] = [];
    for (const [path, item] of Object.entries({ ...doc.paths, ...doc.webhooks })) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} ${path}`);
    }
    expect(shown.sort()).toEqual(documented.sort());
    await expect(page.locator('.info .title').textContent()).resolves.toContain('Property Operations Platform API');

    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(outside).toEqual([]);
  }, 60_000);
});
