import type { OpenAPIObject } from '@nestjs/swagger';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { CALENDAR_FEED_EXAMPLES } from '../../src/modules/calendar-feeds/calendar-feeds.declaration';
import { LEGACY_EXAMPLES } from '../../src/modules/legacy/legacy.declaration';
import { DECLARED } from '../../src/modules/modules';
import { PROPERTY_EXAMPLES } from '../../src/modules/properties/properties.declaration';
import { WEBHOOK_EXAMPLES } from '../../src/modules/webhooks/webhooks.examples';
import { clientFor, createAccount, TestAccount, TestApp } from './app';
import { jobInStatus } from './job-requests';
import { createProperty } from './properties';
import { TINY_JPEG } from './images';
import { startReceiver } from './webhook-receiver';

/**
 * The document's example requests, made sendable: operations in an order that creates what later
 * examples name, and per account the declared example ids (and example URLs) swapped for real ones.
 * Routes named in neither list run between the two, with their documented example as is.
 */
export const FIRST = [
  'POST /v1/properties',
  'POST /v1/propertyPictures',
  'POST /v1/checklists',
  'POST /v1/bookings',
  'POST /v1/reminders',
  'POST /v1/jobRequests',
  'POST /v1/jobRequests/{jobRequestId}/comments',
  'POST /v1/webhooks',
  'POST /legacy/batch',
  'PUT /legacy/webhook',
  'POST /v1/properties/{propertyId}/calendarFeeds',
  'POST /v1/webhooks/{webhookId}/test',
  'POST /v1/webhooks/{webhookId}/replay',
];
export const LAST = [
  'POST /v1/webhooks/{webhookId}/rotateSecret',
  'POST /v1/jobRequests/{jobRequestId}/cancel',
  'POST /v1/checklists/{checklistId}/disable',
  'POST /v1/bookings/{bookingId}/cancel',
  'DELETE /v1/bookings/{bookingId}',
  'DELETE /v1/reminders/{reminderId}',
  'DELETE /v1/propertyPictures/{pictureId}',
  'DELETE /v1/webhooks/{webhookId}',
  'DELETE /legacy/webhook',
  'DELETE /v1/calendarFeeds/{calendarFeedId}',
  'DELETE /v1/properties/{propertyId}',
];
/** The example URLs, swapped for local ones below (the modules' example ids are swapped as their resources are created). */
const EXAMPLE = {
  pictureSourceUrl: PROPERTY_EXAMPLES.pictureSourceUrl,
  webhookUrl: WEBHOOK_EXAMPLES.webhookUrl,
  legacyWebhookUrl: LEGACY_EXAMPLES.legacyWebhookUrl,
  calendarFeedUrl: CALENDAR_FEED_EXAMPLES.calendarFeedUrl,
};

export interface Op {
  key: string;
  method: string;
  path: string;
  spec: {
    parameters?: Array<{ name: string; in: string; required?: boolean; example?: string; schema?: object; $ref?: string }>;
    requestBody?: { required?: boolean; content: Record<string, { schema?: object; example?: unknown }> };
    responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, unknown>; $ref?: string }>;
    security?: unknown[];
    /** Answers test keys only (docs/test-mode.md). */
    'x-test-mode-only'?: boolean;
  };
}

/** Every documented operation: FIRST in its order, then the routes named nowhere, then LAST. */
export function documentedOperations(doc: OpenAPIObject): Op[] {
  const all: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const spec = (item as Record<string, Op['spec']>)[method];
      if (spec) all.push({ key: `${method.toUpperCase()} ${path}`, method, path, spec });
    }
  }
  return all.sort((a, b) => exampleRank(a.key) - exampleRank(b.key));
}

/** Where an operation's example goes: FIRST in its order, then the routes named nowhere, then LAST. */
export function exampleRank(key: string): number {
  return FIRST.includes(key) ? FIRST.indexOf(key) - 1000 : LAST.includes(key) ? LAST.indexOf(key) + 1000 : 0;
}

/** A well-formed id of the same kind (prefix) as `id` that names nothing. */
export function unknownIdLike(id: string): string {
  return `${id.split('_')[0]}_00000000000000000000000000`;
}

/** Local stand-ins for the hosts the example URLs name (an image host, webhook receivers, a calendar). */
export async function startExampleHosts() {
  const receiver = await startReceiver();
  const images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const urls = new Map<string, string>([
    [EXAMPLE.pictureSourceUrl, `http://127.0.0.1:${(images.address() as AddressInfo).port}/living-room.jpg`],
    [EXAMPLE.webhookUrl, `${receiver.url}/hooks`],
    [EXAMPLE.legacyWebhookUrl, `${receiver.url}/legacy-hooks`],
    [EXAMPLE.calendarFeedUrl, `${receiver.url}/calendar.ics`],
  ]);
  const close = async () => {
    await receiver.close();
    await new Promise((resolve) => images.close(resolve));
  };
  return { receiver, urls, close };
}

export interface ExampleOverrides {
  /** Path parameters by name, as raw URL text (not encoded here: `%00` and `..` go out as written). */
  path?: Record<string, string>;
  /** A raw query string (`limit=1&limit=2`) instead of the documented example's parameters. */
  query?: string;
  /** JSON text sent as the body instead of the documented example (set, even to undefined, to replace it). */
  rawBody?: string;
}

/** One account's example requests: its placeholder ids swapped for the resources it created. */
export class ExampleRequests {
  readonly swaps: Map<string, string>;

  private constructor(
    private readonly t: TestApp,
    readonly account: TestAccount,
    /** The legacy routes take the account's legacy key. */
    readonly legacyKey: string,
    urls: Map<string, string>,
  ) {
    this.swaps = new Map(urls);
  }

  static async forNewAccount(t: TestApp, urls: Map<string, string>): Promise<ExampleRequests> {
    const account = await createAccount(t);
    const legacyKey = (await t.app.get(AccountsService).issueKey(account.accountId, 'legacy')).apiKey;
    return new ExampleRequests(t, account, legacyKey, urls);
  }

  /**
   * The same account's sandbox (test mode, docs/test-mode.md): its Platform routes with a test key, so its
   * resources are the sandbox's; the legacy routes keep the legacy key (the legacy API takes no test key).
   */
  static async forSandboxOf(t: TestApp, live: ExampleRequests, urls: Map<string, string>): Promise<ExampleRequests> {
    const key = await t.app.get(AccountsService).issueKey(live.account.accountId, 'platform', { test: true });
    return new ExampleRequests(t, { accountId: live.account.accountId, ...key }, live.legacyKey, urls);
  }

  swap<T>(value: T): T {
    let text = JSON.stringify(value);
    for (const [from, to] of this.swaps) text = text.split(from).join(to);
    return JSON.parse(text) as T;
  }

  /** The real id standing for a placeholder (`realId('propertyId')`), once created. */
  realId(placeholder: string): string {
    const id = this.swaps.get(DECLARED.exampleIds[placeholder]);
    if (!id) throw new Error(`No ${placeholder} created yet`);
    return id;
  }

  /** The operation's documented example body, swapped (undefined when it documents none). */
  exampleBody(op: Op): unknown {
    const example = op.spec.requestBody?.content['application/json']?.example;
    return example === undefined ? undefined : this.swap(example);
  }

  /** The operation's documented example query parameters, swapped. */
  exampleQuery(op: Op): URLSearchParams {
    const params = (op.spec.parameters ?? []).filter((p) => p.in === 'query' && p.example !== undefined);
    return new URLSearchParams(params.map((p): [string, string] => [p.name, String(this.swap(p.example))]));
  }

  /** Sends the operation's documented example request with the account's key, parts replaced as asked. */
  send(op: Op, overrides: ExampleOverrides = {}): request.Test {
    let url = op.path;
    for (const p of (op.spec.parameters ?? []).filter((p) => p.in === 'path'))
      url = url.replace(`{${p.name}}`, overrides.path?.[p.name] ?? String(this.swap(p.example)));
    const query = overrides.query ?? this.exampleQuery(op).toString();
    if (query) url += `?${query}`;
    let req = (request(this.t.app.getHttpServer()) as unknown as Record<string, (u: string) => request.Test>)[op.method](url);
    if (op.spec.security?.length) req = req.set('x-api-key', op.path.startsWith('/legacy/') ? this.legacyKey : this.account.apiKey);
    if ('rawBody' in overrides) return overrides.rawBody === undefined ? req : req.type('json').send(overrides.rawBody);
    const body = this.exampleBody(op);
    return body === undefined ? req : req.send(body as object);
  }

  /**
   * After an example that created something (its answer's first field an id not seen yet): the declared
   * example id of that kind (the same prefix) stands for it from now on.
   */
  record(_op: Op, res: request.Response): void {
    const id: unknown = res.body && typeof res.body === 'object' ? Object.values(res.body as object)[0] : undefined;
    if (typeof id !== 'string' || !id.includes('_')) return;
    const placeholder = Object.values(DECLARED.exampleIds).find((example) => example.split('_')[0] === id.split('_')[0]);
    if (placeholder && !this.swaps.has(placeholder)) this.swaps.set(placeholder, id);
  }

  /** Posts a comment with a picture to the example job (multipart), which `commentId` then stands for. */
  async createCommentWithPicture(): Promise<string> {
    const upload = await request(this.t.app.getHttpServer())
      .post(`/v1/jobRequests/${this.realId('jobRequestId')}/comments`)
      .set('x-api-key', this.account.apiKey)
      .attach('file', TINY_JPEG, 'photo.jpg')
      .expect(201);
    this.swaps.set(DECLARED.exampleIds.commentId, upload.body.commentId);
    return upload.body.commentId;
  }

  /** Creates what every example names: the FIRST examples in order, then a comment with a picture. */
  async createExampleResources(ops: Op[]): Promise<void> {
    for (const op of ops.filter((op) => FIRST.includes(op.key))) {
      const res = await this.send(op);
      if (res.status >= 300) throw new Error(`${op.key} example answered ${res.status}: ${res.text}`);
      this.record(op, res);
    }
    await this.createCommentWithPicture();
  }
}

/** The status each test helper's move needs its job in. */
const TEST_HELPER_FROM: Record<string, number> = {
  accept: 1,
  decline: 1,
  start: 2,
  complete: 5,
  cancelByCleaner: 2,
  acceptChanges: 9,
  declineChanges: 9,
  comments: 1,
};

/**
 * The example requests of the test-mode-only operations (the test helpers): each sent with a test key, on a
 * new job of the account's sandbox driven to the status its move needs, so every example is a move allowed.
 */
export class TestModeExamples {
  private constructor(
    private readonly sandbox: ExampleRequests,
    private readonly propertyId: string,
  ) {}

  static async of(t: TestApp, live: ExampleRequests, urls: Map<string, string>): Promise<TestModeExamples> {
    const sandbox = await ExampleRequests.forSandboxOf(t, live, urls);
    return new TestModeExamples(sandbox, (await createProperty(clientFor(t, sandbox.account))).propertyId);
  }

  /** With `path`: the example sent on those ids as they are (an unknown job's 404), no job made. */
  async send(t: TestApp, op: Op, path?: Record<string, string>): Promise<request.Response> {
    if (path) return this.sandbox.send(op, { path });
    const move = op.path.split('/').pop()!;
    const from = TEST_HELPER_FROM[move];
    if (from === undefined) throw new Error(`no starting status for the test helper ${op.key}`);
    const job = await jobInStatus(clientFor(t, this.sandbox.account), this.propertyId, from);
    return this.sandbox.send(op, { path: { jobRequestId: job.jobRequestId } });
  }
}
