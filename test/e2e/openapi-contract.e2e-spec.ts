import type { OpenAPIObject } from '@nestjs/swagger';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { EXAMPLE } from '../../src/openapi/examples';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { TINY_JPEG } from '../support/images';
import { schemaValidator } from '../support/openapi';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Sends every documented example request, in an order that creates what later examples name
 * (the EXAMPLE placeholder ids are swapped for the real ones), and checks each answer against the
 * documented status, headers and schema. Routes not named below run between the two lists, with
 * their documented example as is.
 */
const FIRST = [
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
const LAST = [
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
/** Which placeholder a create's answer replaces, and from which field. */
const CREATES: Record<string, [keyof typeof EXAMPLE, string]> = {
  'POST /v1/properties': ['propertyId', 'propertyId'],
  'POST /v1/propertyPictures': ['pictureId', 'pictureId'],
  'POST /v1/checklists': ['checklistId', 'checklistId'],
  'POST /v1/bookings': ['bookingId', 'bookingId'],
  'POST /v1/reminders': ['reminderId', 'reminderId'],
  'POST /v1/jobRequests': ['jobRequestId', 'jobRequestId'],
  'POST /v1/webhooks': ['webhookId', 'id'],
  'POST /legacy/batch': ['legacyBatchId', 'batchId'],
  'POST /v1/properties/{propertyId}/calendarFeeds': ['calendarFeedId', 'id'],
  'POST /v1/webhooks/{webhookId}/test': ['deliveryId', 'deliveryId'],
  'POST /v1/webhooks/{webhookId}/replay': ['replayId', 'id'],
};

interface Op {
  key: string;
  method: string;
  path: string;
  spec: {
    parameters?: Array<{ name: string; in: string; example?: string; $ref?: string }>;
    requestBody?: { content: Record<string, { example?: unknown }> };
    responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, unknown>; $ref?: string }>;
    security?: unknown[];
  };
}

describe('OpenAPI contract: every documented example request gets the documented answer', () => {
  let t: TestApp;
  let account: TestAccount;
  /** The legacy routes take the account's legacy key. */
  let legacyKey: string;
  let doc: OpenAPIObject;
  let check: ReturnType<typeof schemaValidator>;
  let receiver: WebhookReceiver;
  let images: Server;
  const swaps = new Map<string, string>();

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    legacyKey = (await t.app.get(AccountsService).issueKey(account.accountId, 'legacy')).apiKey;
    doc = (await t.http.get('/v1/openapi.json').expect(200)).body;
    check = schemaValidator(doc);
    receiver = await startReceiver();
    images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    swaps.set(EXAMPLE.pictureSourceUrl, `http://127.0.0.1:${(images.address() as AddressInfo).port}/living-room.jpg`);
    swaps.set(EXAMPLE.webhookUrl, `${receiver.url}/hooks`);
    swaps.set(EXAMPLE.legacyWebhookUrl, `${receiver.url}/legacy-hooks`);
    swaps.set(EXAMPLE.calendarFeedUrl, `${receiver.url}/calendar.ics`);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await new Promise((resolve) => images.close(resolve));
  });

  const swap = (value: unknown): unknown => {
    let text = JSON.stringify(value);
    for (const [from, to] of swaps) text = text.split(from).join(to);
    return JSON.parse(text);
  };

  function operations(): Op[] {
    const all: Op[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const spec = (item as Record<string, Op['spec']>)[method];
        if (spec) all.push({ key: `${method.toUpperCase()} ${path}`, method, path, spec });
      }
    }
    const rank = (op: Op) =>
      FIRST.includes(op.key) ? FIRST.indexOf(op.key) - 1000 : LAST.includes(op.key) ? LAST.indexOf(op.key) + 1000 : 0;
    return all.sort((a, b) => rank(a) - rank(b));
  }

  async function send(op: Op, pathParams: Record<string, string> = {}) {
    const params = op.spec.parameters ?? [];
    let url = op.path;
    for (const p of params.filter((p) => p.in === 'path')) url = url.replace(`{${p.name}}`, String(swap(pathParams[p.name] ?? p.example)));
    const query = Object.fromEntries(
      params.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, swap(p.example)]),
    );
    let req = (request(t.app.getHttpServer()) as unknown as Record<string, (u: string) => request.Test>)
      [op.method](url)
      .query(query as object);
    if (op.spec.security?.length) req = req.set('x-api-key', op.path.startsWith('/legacy/') ? legacyKey : account.apiKey);
    const example = op.spec.requestBody?.content['application/json']?.example;
    if (example !== undefined) req = req.send(swap(example) as object);
    return req;
  }

  function expectDocumented(op: Op, res: request.Response, status: string) {
    const documented = op.spec.responses[status];
    expect({ op: op.key, status: res.status, documented: Object.keys(op.spec.responses) }).toMatchObject({
      op: op.key,
      status: Number(status),
    });
    const response = documented.$ref
      ? (doc.components!.responses as Record<string, typeof documented>)[documented.$ref.split('/').pop()!]
      : documented;
    for (const name of Object.keys(response.headers ?? {})) {
      if (name !== 'Idempotent-Replayed' && name !== 'Retry-After')
        expect({ op: op.key, header: name, value: res.headers[name.toLowerCase()] }).toMatchObject({ value: expect.any(String) });
    }
    const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
    if (!mediaType) return expect({ op: op.key, body: res.text }).toEqual({ op: op.key, body: '' });
    if (mediaType.startsWith('image/')) return expect(res.headers['content-type']).toMatch(/^image\//);
    expect(res.headers['content-type']).toContain(mediaType);
    expect({ op: op.key, errors: check(media!.schema, res.body) }).toEqual({ op: op.key, errors: null });
  }

  it('answers each example as documented, then 404 for unknown ids where documented', async () => {
    const sent: string[] = [];
    for (const op of operations()) {
      const pathParams: Record<string, string> = {};
      if (op.key === 'GET /v1/jobRequests/{jobRequestId}/comments/{commentId}/picture') {
        const upload = await request(t.app.getHttpServer())
          .post(`/v1/jobRequests/${swaps.get(EXAMPLE.jobRequestId)}/comments`)
          .set('x-api-key', account.apiKey)
          .attach('file', TINY_JPEG, 'photo.jpg')
          .expect(201);
        pathParams.commentId = upload.body.commentId;
      }
      const success = Object.keys(op.spec.responses).find((status) => status.startsWith('2'))!;
      const res = await send(op, pathParams);
      expectDocumented(op, res, success);
      const created = CREATES[op.key];
      if (created) swaps.set(EXAMPLE[created[0]] as string, res.body[created[1]]);
      sent.push(op.key);

      if (op.spec.responses['404'] && op.path.includes('{')) {
        const unknown = Object.fromEntries(
          (op.spec.parameters ?? [])
            .filter((p) => p.in === 'path')
            .map((p) => [p.name, `${String(p.example).split('_')[0]}_00000000000000000000000000`]),
        );
        expectDocumented(op, await send(op, unknown), '404');
      }
    }
    expect(sent).toEqual(expect.arrayContaining([...FIRST, ...LAST]));
    expect(sent.length).toBe(Object.values(doc.paths).reduce((n, item) => n + Object.keys(item as object).length, 0));
  });
});
