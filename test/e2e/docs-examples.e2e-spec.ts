import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, TestApp } from '../support/app';
import { DocExampleRunner } from '../support/doc-example-runner';
import { DocExample, parseDocExamples } from '../support/doc-examples';
import { freePort } from '../support/private-services';
import { startWorker, TestWorker } from '../support/worker';

/**
 * Every documented example runs (issue 41): the shell and HTTP examples of README.md and docs/*.md, and the SDK's
 * programs of its README, page by page in the order a reader follows them (the README, docs/getting-started.md,
 * the docs, the SDK's README), against one
 * API and worker started here with the development settings the pages name (ALLOW_PRIVATE_URLS, as the test
 * environment has it). Each example is a test named by its page, line and heading; one a page marks as not
 * run is listed as skipped with its reason. How a page is read and run: docs/architecture.md, "Tests".
 */
const ROOT = join(__dirname, '..', '..');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((file) => file.endsWith('.md') && file !== 'getting-started.md')
  .sort()
  .map((file) => `docs/${file}`);
const PAGES: Array<[string, DocExample[]]> = ['README.md', 'docs/getting-started.md', ...DOCS, 'clients/typescript/README.md']
  .map((page): [string, DocExample[]] => [page, parseDocExamples(page, readFileSync(join(ROOT, page), 'utf8'))])
  .filter(([, examples]) => examples.length > 0);

jest.setTimeout(120_000);

describe('documented examples', () => {
  let app: TestApp;
  let worker: TestWorker;
  let runner: DocExampleRunner;

  beforeAll(async () => {
    const [apiPort, receiverPort] = [await freePort(), await freePort()];
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    // The addresses a page's reader has (`npm start`'s API, the receiver the pages start) are the run's.
    const env = { PUBLIC_BASE_URL: apiUrl };
    [app, worker] = await Promise.all([startApp(env, [], apiPort), startWorker(env)]);
    runner = new DocExampleRunner({
      apiUrl,
      addresses: [
        ['localhost:3000', `127.0.0.1:${apiPort}`],
        ['127.0.0.1:4000', `127.0.0.1:${receiverPort}`],
      ],
      env: { ...withoutNpmVariables(process.env), ...env },
    });
  });
  afterAll(async () => {
    await runner?.close();
    await Promise.all([worker?.close(), app?.close()]);
  });

  for (const [page, examples] of PAGES) {
    describe(page, () => {
      for (const example of examples) {
        const name = `line ${example.line} (${example.heading})`;
        if (example.notRun) it.skip(`${name}: not run: ${example.notRun}`, () => undefined);
        else it(name, () => runner.run(example));
      }
      const starts = examples.some((example) => example.shell?.some((step) => step.background));
      if (starts) it('the processes it started printed what it shows; they stop with it', () => runner.endPage(page));
      else afterAll(() => runner.endPage(page));
    });
  }
});

/** The environment of a reader's terminal: the test run's, without what a parent `npm test` adds. */
function withoutNpmVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !entry[0].startsWith('npm_') && entry[1] !== undefined),
  );
}
