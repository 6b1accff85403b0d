import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from '../support/app';
import { expectProblem } from '../support/problem';
import { createProperty, validProperty } from '../support/properties';

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

const dailyRemaining = (res: { headers: Record<string, string> }) => Number(/"daily";r=(\d+)/.exec(res.headers.ratelimit)?.[1]);

function expectLimitHeaders(res: { headers: Record<string, unknown> }): void {
  for (const name of LIMIT_HEADERS) expect({ name, value: res.headers[name] }).toEqual({ name, value: expect.any(String) });
}

// One app for the whole file; its first account's client calls.
const app = suite();

describe('unreadable bodies are answered after auth and rate limiting', () => {
  it('a malformed body without a valid key is a 401, not a 400', async () => {
    const res = await app.t.http.post('/v1/properties').set('content-type', 'application/json').send('{').expect(401);
    expectProblem(res, 401, 'unauthorized', '/v1/properties');
    expect(res.body.detail).toBe('Missing or invalid x-api-key');
    const wrongKey = await app.t.http.post('/v1/properties').set('x-api-key', 'popk_nope').set('content-type', 'text/plain').send('hi');
    expectProblem(wrongKey, 401, 'unauthorized', '/v1/properties');
  });

  it('malformed JSON with a valid key is a 400 carrying the rate-limit headers, and counts against the limit', async () => {
    const first = await app.api.post('/v1/properties').set('content-type', 'application/json').send('{"name":').expect(400);
    expectProblem(first, 400, 'malformedJson', '/v1/properties');
    expectLimitHeaders(first);
    const second = await app.api.patch('/v1/properties/prop_x').set('content-type', 'application/json').send('[').expect(400);
    expectProblem(second, 400, 'malformedJson', '/v1/properties/prop_x');
    // The daily window, unlike the one-second one, cannot end between the two requests.
    expect(dailyRemaining(second)).toBe(dailyRemaining(first) - 1);
  });

  it('415 and 413 with a valid key carry the rate-limit headers too', async () => {
    const unsupported = await app.api.post('/v1/checklists').set('content-type', 'text/plain').send('title=x').expect(415);
    expectProblem(unsupported, 415, 'unsupportedMediaType', '/v1/checklists');
    expectLimitHeaders(unsupported);
    const huge = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const tooLarge = await app.api.post('/v1/properties').set('content-type', 'application/json').send(huge).expect(413);
    expectProblem(tooLarge, 413, 'payloadTooLarge', '/v1/properties');
    expectLimitHeaders(tooLarge);
  });

  it('an unknown route is still a 404 whatever its body', async () => {
    const res = await app.api.post('/v1/no-such-route').set('content-type', 'application/json').send('{').expect(404);
    expectProblem(res, 404, 'notFound', '/v1/no-such-route');
  });
});

describe('routes without a query or body DTO are strict too', () => {
  let propertyId: string;
  let checklistId: string;

  beforeAll(async () => {
    propertyId = (await createProperty(app.api)).propertyId;
    const checklist = await app.api
      .post('/v1/checklists')
      .send({ title: 'Clean', propertyId, taskGroups: [{ title: 'Kitchen', tasks: [{ label: 'Wipe' }] }] })
      .expect(201);
    checklistId = checklist.body.checklistId;
  });

  it.each([
    ['GET a property', 'get', (): string => `/v1/properties/${propertyId}?expand=pictures`, ['expand']],
    [
      'the unpaginated checklist list',
      'get',
      (): string => `/v1/properties/${propertyId}/checklists?limit=5&cursor=abc`,
      ['cursor', 'limit'],
    ],
    ['the unpaginated webhook list', 'get', (): string => `/v1/webhooks?limit=5`, ['limit']],
    ['DELETE a picture', 'delete', (): string => `/v1/propertyPictures/pic_unknown?force=true`, ['force']],
    ['disable a checklist', 'post', (): string => `/v1/checklists/${checklistId}/disable?now=1`, ['now']],
  ] as const)('%s with query parameters is a 400 objectStrict naming each', async (_label, method, path, names) => {
    const res = await app.api[method](path()).expect(400);
    const problem = expectProblem(res, 400, 'objectStrict');
    expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(names.map((n) => `#/${n}`));
    expectLimitHeaders(res);
  });

  it('the public health check still takes any query', async () => {
    await app.t.http.get('/v1/health?probe=lb').expect(200);
  });

  it('a body field sent to a route that takes no body is a 400 objectStrict, and nothing changes', async () => {
    const res = await app.api.post(`/v1/checklists/${checklistId}/disable`).send({ reason: 'old', now: true }).expect(400);
    const problem = expectProblem(res, 400, 'objectStrict', `/v1/checklists/${checklistId}/disable`);
    expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/now', '#/reason']);
    const del = await app.api.delete(`/v1/properties/${propertyId}`).send({ cascade: false }).expect(400);
    expectProblem(del, 400, 'objectStrict');
    const listed = await app.api.get(`/v1/properties/${propertyId}/checklists`).expect(200);
    expect(listed.body.data[0]).toMatchObject({ checklistId, disabled: false });
  });

  it('a body that is not an object on such a route is a 400; an empty object or no body is fine', async () => {
    for (const body of ['[]', 'null', '"x"', '1']) {
      const res = await app.api
        .post(`/v1/checklists/${checklistId}/disable`)
        .set('content-type', 'application/json')
        .send(body)
        .expect(400);
      expect(expectProblem(res, 400, 'validationFailed').errors).toEqual([{ pointer: '#', detail: 'This route takes no request body' }]);
    }
    await app.api.get(`/v1/properties/${propertyId}`).set('content-type', 'application/json').send('{}').expect(200);
    await app.api.post(`/v1/checklists/${checklistId}/disable`).set('content-type', 'application/json').send('{}').expect(200);
    await app.api.delete(`/v1/properties/${propertyId}`).expect(204);
  });
});

describe('path ids', () => {
  it.each([
    ['get', '/v1/properties/prop_%00'],
    ['patch', '/v1/properties/%00'],
    ['delete', '/v1/propertyPictures/pic_%00'],
    ['patch', '/v1/webhooks/sub_%00'],
    ['delete', '/v1/webhooks/%00'],
    ['get', '/v1/webhooks/%00/deliveries'],
  ] as const)('a NUL character in a path id is a 404 like any unknown id: %s %s', async (method, path) => {
    const res = await app.api[method](path).expect(404);
    expectProblem(res, 404, 'notFound', path);
    expect(res.body.detail).toContain('\\u0000');
  });
});

describe('requests Node refuses before any route', () => {
  /** Writes raw bytes and reads the whole answer (the server closes the connection). */
  function rawExchange(bytes: string): Promise<{ status: number; headers: string; body: any }> {
    const { port } = app.t.app.getHttpServer().address() as AddressInfo;
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
      const parts: Buffer[] = [];
      socket.on('data', (part) => parts.push(part));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const [head, body] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : undefined });
      });
    });
  }

  it('a request line over the header limit is a 431 problem document', async () => {
    const res = await rawExchange(`GET /v1/properties?cursor=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/problem\+json/i);
    expect(res.body).toMatchObject({ status: 431, code: 'headersTooLarge', title: 'Request Header Fields Too Large', instance: '/' });
    expect(res.headers).toContain(`x-request-id: ${res.body.requestId}`);
  });

  it('malformed HTTP is a 400 problem document', async () => {
    const res = await rawExchange('GARBAGE\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      code: 'badRequest',
      type: expect.stringMatching(/\/badRequest$/),
      requestId: expect.any(String),
    });
  });
});

describe('strings PostgreSQL cannot hold as sent', () => {
  it.each([
    ['a lone surrogate in a value', { name: '\ud800abc' }, '#/name', 'name contains a lone UTF-16 surrogate'],
    [
      'a lone low surrogate deep in a list',
      { details: { otherAttributes: [{ label: 'View', value: ['sea', 'x\udc00'] }] } },
      '#/details/otherAttributes/0/value/1',
      'details.otherAttributes[0].value[1] contains a lone UTF-16 surrogate',
    ],
    ['U+0000 in a value', { tags: ['ok', 'a\u0000b'] }, '#/tags/1', 'tags[1] contains U+0000'],
    [
      'U+0000 in a field name',
      { details: { 'wi\u0000fi': 'x' } },
      '#/details/wi\u0000fi',
      'details.wi\u0000fi has a name that contains U+0000',
    ],
  ])('%s is a 400 invalidCharacters naming it, and nothing is stored', async (_label, overrides, pointer, start) => {
    const body = validProperty(overrides);
    const res = await app.api.post('/v1/properties').send(body).expect(400);
    const problem = expectProblem(res, 400, 'invalidCharacters', '/v1/properties');
    expect(problem.errors).toEqual([{ pointer, detail: expect.stringContaining(start) }]);
    const listed = await app.api.get('/v1/properties?limit=100').expect(200);
    expect(listed.body.data.map((p: { sourceId: string }) => p.sourceId)).not.toContain(body.sourceId);
  });

  it('characters outside the BMP (surrogate pairs) are stored and returned as sent', async () => {
    const created = await app.api
      .post('/v1/properties')
      .send(validProperty({ name: 'Casa 😀 𝄞' }))
      .expect(201);
    expect(created.body.name).toBe('Casa 😀 𝄞');
    expect((await app.api.get(`/v1/properties/${created.body.propertyId}`).expect(200)).body.name).toBe('Casa 😀 𝄞');
  });
});
