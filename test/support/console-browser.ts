import AxeBuilder from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { TestApp } from './app';
import { linkPath, mintLink } from './console';
import { CHROMIUM_ARGS, testPrerequisites } from './prerequisites';

/** The console in the headless Chromium that scripts/test-prerequisites.js obtained (as the API reference test). */
export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** http://127.0.0.1:<port> of the app under test. */
  base: string;
  close(): Promise<void>;
}

export async function openConsoleBrowser(t: TestApp): Promise<ConsoleBrowser> {
  const { chromium: executablePath } = testPrerequisites();
  const profile = mkdtempSync(join(tmpdir(), 'pop-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: CHROMIUM_ARGS,
  });
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    base,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A fresh sign-in link of the account, on the app under test's address. */
export async function browserLink(t: TestApp, b: ConsoleBrowser, accountId: string, minutes?: number): Promise<string> {
  return b.base + linkPath((await mintLink(t, accountId, minutes)).url);
}

/** Opens a link and waits for the console's overview: the page's script posts the token at once. */
export async function signInInBrowser(t: TestApp, b: ConsoleBrowser, accountId: string): Promise<void> {
  await b.page.goto(await browserLink(t, b, accountId));
  await b.page.waitForURL(`${b.base}/console`);
}

/** axe-core's serious and critical violations on the page, one line each (WCAG 2.x A and AA rules and best practices). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The axe scans of a test file's pages, by name: `scan(name)` fails on any serious or critical violation,
 * and `expectEveryPageScanned()` (the file's last test) fails when a page of `pages` was never scanned.
 */
export function axeScans<Name extends string>(pages: readonly Name[], page: () => Page) {
  const scanned = new Map<Name, string[]>();
  return {
    async scan(name: Name): Promise<void> {
      const violations = await seriousViolations(page());
      scanned.set(name, violations);
      expect({ page: name, violations }).toEqual({ page: name, violations: [] });
    },
    expectEveryPageScanned(): void {
      expect([...scanned.keys()].sort()).toEqual([...pages].sort());
      expect([...scanned.values()].flat()).toEqual([]);
    },
  };
}
