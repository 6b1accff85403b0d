import type { INestApplication } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';

/**
 * /llms.txt (the llmstxt.org convention): a Markdown index of the documentation for AI assistants, served
 * as plain text at the root, with the Markdown pages themselves at /llms/<file>.md. Every page of docs/
 * must be listed here (a unit test checks it); `about` says what an integrator finds in it.
 */
type LlmsSection = 'Docs' | 'Optional';

/** Each section's pages in the index's order: file, and what an integrator finds in it. */
const PAGES_BY_SECTION: Record<LlmsSection, Record<string, string>> = {
  Docs: {
    'README.md': 'run and call the service: first call, endpoints, HTTP conventions, rate limits, configuration',
    'docs/getting-started.md': 'from a clone to a signed webhook received on your machine, step by step',
    'docs/assistants.md': 'connect an AI assistant to the MCP server at /v1/mcp: configuration, tools, what each may change',
    'docs/properties.md': 'properties and pictures: rules the spec leaves open, finding a property by name or sourceId',
    'docs/checklists.md': 'checklists, task groups and server-minted task ids',
    'docs/bookings.md': 'bookings: windows, statuses, date changes, cancellation',
    'docs/reminders.md': "reminders and the bookings' automatic turnover reminders",
    'docs/job-requests.md': "job requests to cleaners: the status machine, changes, the job's chat",
    'docs/events.md': 'the event catalogue and envelope, and the GET /v1/events feed',
    'docs/webhooks.md': 'signed webhooks: subscriptions, URL rules, signature verification, retries, delivery log, replays',
    'docs/calendar-feeds.md': "iCal import of listings' calendars into bookings (extension)",
    'docs/console.md': "the account holder's console: API keys, the webhook portal, the events feed, and its sign-in links",
    'docs/test-mode.md':
      "test keys and the account's sandbox: isolated test data, the provider side simulated, webhooks marked X-Test-Mode, clearing it",
    'docs/legacy.md': 'the deprecated legacy batched API and the migration guide to the Platform API',
  },
  Optional: {
    'docs/architecture.md': "the code's layout: processes, a request's path, idempotency, modules",
    'docs/operations.md': 'running the API and the worker: deploys, metrics, runbooks',
    'docs/performance.md': 'benchmarks and their figures',
    'docs/scaling.md': 'replicas, PgBouncer and what gives way first as load grows',
  },
};
const SECTIONS = Object.keys(PAGES_BY_SECTION) as LlmsSection[];

export const LLMS_PAGES: ReadonlyArray<{ file: string; section: LlmsSection; about: string }> = SECTIONS.flatMap((section) =>
  Object.entries(PAGES_BY_SECTION[section]).map(([file, about]) => ({ file, section, about })),
);

export interface LlmsPage {
  /** Where it is served: /llms/<name>.md */
  name: string;
  title: string;
  about: string;
  section: LlmsSection;
  markdown: string;
}

/** The index, in the llmstxt.org layout: H1, a summary quote, then sections of `- [title](url): notes`. */
export function llmsTxt(baseUrl: string, pages: readonly LlmsPage[]): string {
  const link = (title: string, path: string, about: string) => `- [${title}](${baseUrl}${path}): ${about}`;
  const section = (name: LlmsPage['section']) =>
    pages.filter((page) => page.section === name).map((page) => link(page.title, `/llms/${page.name}`, page.about));
  return [
    '# Property Operations Platform API',
    '',
    "> JSON REST API for short-term-rental operations (properties, checklists, bookings, reminders, job requests to cleaners and their chat) that pushes signed webhooks, with an MCP server for AI assistants. Every route except GET /v1/health, the OpenAPI document and these pages needs the account's API key in the `x-api-key` header (the MCP endpoint also takes `Authorization: Bearer <key>`). Errors are RFC 9457 problem documents.",
    '',
    '## API',
    '',
    link('OpenAPI 3.1 document', '/v1/openapi.json', 'every route, request and response schema, example, problem and webhook payload'),
    link('API reference', '/docs', 'the same document as an interactive page (Swagger UI)'),
    link('MCP server', '/v1/mcp', 'Model Context Protocol over Streamable HTTP (stateless, POST only): the tools of docs/assistants.md'),
    '',
    ...SECTIONS.flatMap((name) => [`## ${name}`, '', ...section(name), '']),
  ].join('\n');
}

/** The pages as found next to package.json (the repository, or an image that copies docs/ and README.md); missing ones are left out. */
export function readLlmsPages(): LlmsPage[] {
  const root = packageRoot();
  return LLMS_PAGES.flatMap(({ file, section, about }) => {
    const path = join(root, file);
    if (!existsSync(path)) return [];
    const markdown = readFileSync(path, 'utf8');
    const title = /^# (.+)$/m.exec(markdown)?.[1].trim() ?? file;
    return [{ name: file.split('/').pop()!, title, about, section, markdown }];
  });
}

function packageRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'package.json'))) return dir;
  return process.cwd();
}

/**
 * GET /llms.txt and GET /llms/<name>.md, no key needed (public documentation, like /v1/openapi.json). Plain
 * Express routes beside the reference's: documentation about the API, no operation of it.
 */
export function serveLlmsTxt(app: INestApplication, baseUrl: string): void {
  const pages = readLlmsPages();
  const index = llmsTxt(baseUrl, pages);
  const byName = new Map(pages.map((page) => [page.name, page.markdown]));
  const http = app.getHttpAdapter();
  const send = (res: ServerResponse, type: string, body: string) => {
    res.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300' }).end(body);
  };
  http.get('/llms.txt', ((_req: IncomingMessage, res: ServerResponse) => send(res, 'text/plain', index)) as never);
  http.get('/llms/:name', ((req: IncomingMessage & { params: { name: string } }, res: ServerResponse, next: () => void) => {
    const markdown = byName.get(req.params.name);
    if (markdown === undefined) return next(); // the API's 404 problem
    send(res, 'text/markdown', markdown);
  }) as never);
}
