import type { INestApplication } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';

/**
 * /llms.txt (the llmstxt.org convention): a Markdown index of the documentation for AI assistants, served
 * as plain text at the root, with the Markdown pages themselves at /llms/<file>.md. Every page of docs/
 * must be listed here (a unit test checks it); `about` says what an integrator finds in it.
 */
export const LLMS_PAGES: ReadonlyArray<{ file: string; section: 'Docs' | 'Optional'; about: string }> = [
  {
    file: 'README.md',
    section: 'Docs',
    about: 'run and call the service: first call, endpoints, HTTP conventions, rate limits, configuration',
  },
  {
    file: 'docs/assistants.md',
    section: 'Docs',
    about: 'connect an AI assistant to the MCP server at /v1/mcp: configuration, tools, what each may change',
  },
  {
    file: 'docs/properties.md',
    section: 'Docs',
    about: 'properties and pictures: rules the spec leaves open, finding a property by name or sourceId',
  },
  { file: 'docs/checklists.md', section: 'Docs', about: 'checklists, task groups and server-minted task ids' },
  { file: 'docs/bookings.md', section: 'Docs', about: 'bookings: windows, statuses, date changes, cancellation' },
  { file: 'docs/reminders.md', section: 'Docs', about: "reminders and the bookings' automatic turnover reminders" },
  { file: 'docs/job-requests.md', section: 'Docs', about: "job requests to cleaners: the status machine, changes, the job's chat" },
  { file: 'docs/events.md', section: 'Docs', about: 'the event catalogue and envelope, and the GET /v1/events feed' },
  {
    file: 'docs/webhooks.md',
    section: 'Docs',
    about: 'signed webhooks: subscriptions, URL rules, signature verification, retries, delivery log, replays',
  },
  { file: 'docs/calendar-feeds.md', section: 'Docs', about: "iCal import of listings' calendars into bookings (extension)" },
  {
    file: 'docs/console.md',
    section: 'Docs',
    about: "the account holder's console: API keys, the webhook portal, the events feed, and its sign-in links",
  },
  { file: 'docs/legacy.md', section: 'Docs', about: 'the deprecated legacy batched API and the migration guide to the Platform API' },
  { file: 'docs/architecture.md', section: 'Optional', about: "the code's layout: processes, a request's path, idempotency, modules" },
  { file: 'docs/operations.md', section: 'Optional', about: 'running the API and the worker: deploys, metrics, runbooks' },
  { file: 'docs/performance.md', section: 'Optional', about: 'benchmarks and their figures' },
  { file: 'docs/scaling.md', section: 'Optional', about: 'replicas, PgBouncer and what gives way first as load grows' },
];

export interface LlmsPage {
  /** Where it is served: /llms/<name>.md */
  name: string;
  title: string;
  about: string;
  section: 'Docs' | 'Optional';
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
    '## Docs',
    '',
    ...section('Docs'),
    '',
    '## Optional',
    '',
    ...section('Optional'),
    '',
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
