import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { ProbeModule } from '../support/probe.module';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sends a raw request (chunked bodies, odd paths) that supertest would normalise. */
function rawRequest(
  t: TestApp,
  options: { method: string; path: string; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON; keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

describe('HTTP conventions', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startApp({}, [ProbeModule]);
    account = await createAccount(t);
    api = clientFor(t, account);
  });
  afterAll(() => t.close());

  describe('problem documents (spec 7)', () => {
    it('answers an unknown route with a 404 problem whose instance is the path without the query', async () => {
      const res = await api.get('/v1/no-such-thing?x=1').expect(404);
      const problem = expectProblem(res, 404, 'notFound', '/v1/no-such-thing');
      expect(problem.title).toBe('Not Found');
      expect(problem.detail).toContain('/v1/no-such-thing');
    });

    it('answers an unknown route without a key with a 404 too (there is no route to guard)', async () => {
      expectProblem(await t.http.get('/v1/no-such-thing').expect(404), 404, 'notFound', '/v1/no-such-thing');
      expectProblem(await t.http.get('/').expect(404), 404, 'notFound', '/');
    });

    it('answers a known path with another method with a 405 problem and Allow naming its methods (RFC 9110), key or not', async () => {
      const put = await api.put('/v1/properties').send({}).expect(405);
      expect(expectProblem(put, 405, 'methodNotAllowed', '/v1/properties').detail).toBe(
        'PUT is not a method of /v1/properties: it takes GET, HEAD, POST',
      );
      expect(put.headers.allow).toBe('GET, HEAD, POST');
      for (const [request, allow] of [
        [t.http.delete('/v1/events'), 'GET, HEAD'],
        [t.http.post('/v1/health').send({}), 'GET, HEAD'],
        [t.http.put('/v1/properties/prop_01J0000000000000000000000'), 'DELETE, GET, HEAD, PATCH'],
        [t.http.get('/v1/webhooks/sub_x/rotateSecret'), 'POST'],
        // Express matches paths case-insensitively and with a trailing slash: so does the 405.
        [t.http.patch('/V1/Events/'), 'GET, HEAD'],
      ] as const) {
        const res = await request.expect(405);
        expectProblem(res, 405, 'methodNotAllowed');
        expect(res.headers.allow).toBe(allow);
      }
      // A path no route has stays 404; so does a route's own method refused as "no such route" (a live key on a test helper).
      expectProblem(await t.http.put('/v1/no-such-thing').expect(404), 404, 'notFound');
      expectProblem(await api.post('/v1/testHelpers/jobRequests/job_x/accept').send({}).expect(404), 404, 'notFound');
    });

    it('answers malformed JSON with 400 malformedJson', async () => {
      const res = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send('{"name": "abc",').expect(400);
      const problem = expectProblem(res, 400, 'malformedJson', '/v1/test-probe/bodies');
      expect(problem.title).toBe('Malformed JSON');
    });

    it('answers malformed JSON after auth: without a key it is the 401 (see http-strict-request)', async () => {
      const res = await t.http.post('/v1/test-probe/bodies').set('content-type', 'application/json').send('{').expect(401);
      expectProblem(res, 401, 'unauthorized', '/v1/test-probe/bodies');
    });

    it.each([
      ['text/plain', 'name=abc'],
      ['application/x-www-form-urlencoded', 'name=abc'],
      ['application/xml', '<name>abc</name>'],
      ['multipart/form-data; boundary=x', '--x--'],
    ])('answers a %s body with 415', async (type, body) => {
      const res = await api.post('/v1/test-probe/bodies').set('content-type', type).send(body).expect(415);
      const problem = expectProblem(res, 415, 'unsupportedMediaType', '/v1/test-probe/bodies');
      expect(problem.detail).toContain(type.split(';')[0]);
    });

    it('answers a body without a content type with 415', async () => {
      const res = await rawRequest(t, {
        method: 'POST',
        path: '/v1/test-probe/bodies',
        headers: { 'x-api-key': account.apiKey, 'content-length': '14' },
        chunks: [Buffer.from('{"name":"abc"}')],
      });
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        status: 415,
        code: 'unsupportedMediaType',
        instance: '/v1/test-probe/bodies',
        requestId: res.headers['x-request-id'],
      });
    });

    it('accepts application/json with a charset, and +json media types', async () => {
      await api.post('/v1/test-probe/bodies').set('content-type', 'application/json; charset=utf-8').send('{"name":"abc"}').expect(201);
      await api.post('/v1/test-probe/bodies').set('content-type', 'application/merge-patch+json').send('{"name":"abc"}').expect(201);
    });

    it('answers an unsupported charset with 415', async () => {
      const res = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json; charset=klingon').send('{"name":"abc"}');
      expectProblem(res, 415, 'unsupportedMediaType', '/v1/test-probe/bodies');
    });

    it('answers an unsupported content encoding with 415', async () => {
      const res = await api
        .post('/v1/test-probe/bodies')
        .set('content-type', 'application/json')
        .set('content-encoding', 'compress')
        .send('{"name":"abc"}');
      expectProblem(res, 415, 'unsupportedMediaType', '/v1/test-probe/bodies');
    });

    it('answers a body over 1 MB with 413, and accepts one just under', async () => {
      const over = JSON.stringify({ name: 'abc', padding: 'x'.repeat(1024 * 1024) });
      const res = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send(over).expect(413);
      const problem = expectProblem(res, 413, 'payloadTooLarge', '/v1/test-probe/bodies');
      expect(problem.detail).toContain('1048576');

      // 1 MB exactly parses (then fails validation on the unknown field, proving it was read).
      const prefix = '{"name":"abc","padding":"';
      const exact = prefix + 'x'.repeat(1024 * 1024 - prefix.length - 2) + '"}';
      expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
      const ok = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send(exact).expect(400);
      expectProblem(ok, 400, 'objectStrict');
    });

    it('answers an oversized chunked body (no content-length) with 413', async () => {
      const chunk = Buffer.from('x'.repeat(64 * 1024));
      const res = await rawRequest(t, {
        method: 'POST',
        path: '/v1/test-probe/bodies',
        headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [Buffer.from('{"name":"abc","padding":"'), ...Array.from({ length: 17 }, () => chunk), Buffer.from('"}')],
      });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'payloadTooLarge', status: 413, requestId: res.headers['x-request-id'] });
    });

    it.each([
      ['an array', '[{"name":"abc"}]'],
      ['a string', '"abc"'],
      ['a number', '42'],
      ['true', 'true'],
      ['null', 'null'],
    ])('answers %s as the body with 400 validationFailed at the root', async (_label, body) => {
      const res = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send(body).expect(400);
      const problem = expectProblem(res, 400, 'validationFailed', '/v1/test-probe/bodies');
      expect(problem.errors).toEqual([{ pointer: '#', detail: expect.stringContaining('JSON object') }]);
    });

    const nested = (levels: number) => '{"name":"abc","extra":' + '{"a":'.repeat(levels - 1) + '1' + '}'.repeat(levels - 1) + '}';

    it('answers a body nesting deeper than 32 levels with 400 bodyTooDeep, however deep', async () => {
      // 32 levels get past the parser (and fail validation on the unknown field).
      expectProblem(
        await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send(nested(32)).expect(400),
        400,
        'objectStrict',
      );
      for (const levels of [33, 10_000, 150_000]) {
        const res = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').send(nested(levels)).expect(400);
        expect(expectProblem(res, 400, 'bodyTooDeep', '/v1/test-probe/bodies').detail).toContain('32');
      }
      const arrays = '['.repeat(50_000) + ']'.repeat(50_000);
      expectProblem(
        await api
          .post('/v1/test-probe/things')
          .set('idempotency-key', 'deep-1')
          .set('content-type', 'application/json')
          .send(arrays)
          .expect(400),
        400,
        'bodyTooDeep',
      );
    });

    it('answers an unexpected failure with a bare 500 that hides the internals', async () => {
      const res = await api.get('/v1/test-probe/boom').set('x-request-id', 'trace-500').expect(500);
      const problem = expectProblem(res, 500, 'internal', '/v1/test-probe/boom');
      expect(problem.requestId).toBe('trace-500');
      expect(Object.keys(problem).sort()).toEqual(['code', 'detail', 'instance', 'requestId', 'status', 'title', 'type']);
      const text = res.text;
      for (const secret of ['hunter2', 'ECONNREFUSED', '10.0.0.7', 'secret.ts', 'at ', 'stack', 'Error'])
        expect(text).not.toContain(secret);
    });

    it('answers a write that lost a race with a delete (a foreign key violation) with 409 conflict, not 500', async () => {
      const res = await api.post('/v1/test-probe/orphans').expect(409);
      const problem = expectProblem(res, 409, 'conflict', '/v1/test-probe/orphans');
      expect(problem.detail).toMatch(/deleted by another request meanwhile/);
      for (const internal of ['api_keys', 'acct_deleted_meanwhile', 'foreign key', 'violates']) expect(res.text).not.toContain(internal);
    });

    it('answers a path parameter with a malformed percent-encoding with 400, not 500', async () => {
      const res = await api.get('/v1/test-probe/items/%E0%A4%A').expect(400);
      expectProblem(res, 400, 'badRequest');
      const ok = await api.get('/v1/test-probe/items/a%20b').expect(200);
      expect(ok.body).toEqual({ id: 'a b' });
    });

    it('answers a malformed percent-encoding in an unknown path without a 500', async () => {
      const res = await api.get('/v1/%zz');
      expect([400, 404]).toContain(res.status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });
  });

  describe('strict validation of query parameters', () => {
    it('names every unknown query parameter (objectStrict)', async () => {
      const res = await api.get('/v1/events?foo=1&bar=x&limit=5').expect(400);
      const problem = expectProblem(res, 400, 'objectStrict', '/v1/events');
      expect(problem.title).toBe('Unknown fields');
      expect(problem.detail).toContain('foo');
      expect(problem.detail).toContain('bar');
      expect(problem.detail).not.toContain('limit');
      expect(problem.errors).toEqual(
        expect.arrayContaining([
          { pointer: '#/foo', detail: expect.stringContaining('foo') },
          { pointer: '#/bar', detail: expect.stringContaining('bar') },
        ]),
      );
      expect(problem.errors).toHaveLength(2);
    });

    it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])(
      'rejects the query parameter %s as unknown',
      async (name) => {
        const res = await api.get(`/v1/events?${name}=1`).expect(400);
        const problem = expectProblem(res, 400, 'objectStrict', '/v1/events');
        expect(problem.errors).toEqual([{ pointer: `#/${name}`, detail: expect.stringContaining(name) }]);
      },
    );

    it('rejects unknown parameters whatever their value or shape', async () => {
      for (const query of ['foo', 'foo=', 'foo[bar]=1', 'foo=1&foo=2']) {
        const res = await api.get(`/v1/events?${query}`);
        expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'objectStrict' });
      }
    });

    it.each([
      ['0', 'must not be less than 1'],
      ['-1', 'must not be less than 1'],
      ['101', 'must not be greater than 100'],
      ['1.5', 'integer'],
      ['abc', 'integer'],
      ['', 'limit'],
      ['1e1', 'integer'],
      ['0x10', 'integer'],
      [' 5', 'integer'],
    ])('rejects limit=%p with validationFailed', async (value, message) => {
      const res = await api.get(`/v1/events?limit=${encodeURIComponent(value)}`).expect(400);
      const problem = expectProblem(res, 400, 'validationFailed', '/v1/events');
      expect(problem.errors).toEqual([{ pointer: '#/limit', detail: expect.stringContaining(message) }]);
      expect(problem.detail).toContain('limit');
    });

    it('rejects a repeated limit', async () => {
      const res = await api.get('/v1/events?limit=1&limit=2').expect(400);
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors).toEqual([{ pointer: '#/limit', detail: expect.stringContaining('limit') }]);
    });

    it.each(['1', '100', '50', '007'])('accepts limit=%s', async (value) => {
      await api.get(`/v1/events?limit=${value}`).expect(200);
      const res = await api.get(`/v1/test-probe/items?limit=${value}`).expect(200);
      expect(res.body).toEqual({ limit: Number(value) });
    });

    it('defaults limit to 50', async () => {
      expect((await api.get('/v1/test-probe/items').expect(200)).body).toEqual({ limit: 50 });
    });
  });

  describe('strict validation of bodies', () => {
    const post = (body: unknown) => api.post('/v1/test-probe/bodies').send(body as object);

    it('accepts a valid nested body', async () => {
      const body = {
        name: 'Seaside',
        taskGroups: [{ name: 'Kitchen', tasks: [{ label: 'Wipe', durationInMinutes: 5 }, { label: 'Mop' }] }],
      };
      const res = await post(body).expect(201);
      expect(res.body).toEqual({ accountId: account.accountId, body });
    });

    it('names an unknown field at depth with a JSON pointer', async () => {
      const res = await post({
        name: 'Seaside',
        taskGroups: [{ name: 'K', tasks: [{ label: 'Wipe' }, { label: 'Mop', colour: 'red' }] }],
      }).expect(400);
      const problem = expectProblem(res, 400, 'objectStrict', '/v1/test-probe/bodies');
      expect(problem.errors).toEqual([
        { pointer: '#/taskGroups/0/tasks/1/colour', detail: expect.stringContaining('taskGroups[0].tasks[1].colour') },
      ]);
      expect(problem.detail).toContain('taskGroups[0].tasks[1].colour');
    });

    it('names every unknown field at every depth at once', async () => {
      const res = await post({
        name: 'Seaside',
        extra: 1,
        taskGroups: [{ name: 'K', hue: 2, tasks: [{ label: 'Wipe', colour: 'red' }] }],
      }).expect(400);
      const problem = expectProblem(res, 400, 'objectStrict');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
        '#/extra',
        '#/taskGroups/0/hue',
        '#/taskGroups/0/tasks/0/colour',
      ]);
    });

    it('prefers objectStrict over other failures', async () => {
      const res = await post({ name: 1, extra: true }).expect(400);
      expect(expectProblem(res, 400, 'objectStrict').errors).toEqual([{ pointer: '#/extra', detail: expect.any(String) }]);
    });

    it.each(['__proto__', 'constructor'])('rejects a body field named %s as unknown', async (name) => {
      const res = await api
        .post('/v1/test-probe/bodies')
        .set('content-type', 'application/json')
        .send(`{"name":"abc","${name}":{"x":1}}`)
        .expect(400);
      expect(expectProblem(res, 400, 'objectStrict').errors).toEqual([{ pointer: `#/${name}`, detail: expect.any(String) }]);
    });

    it('reports each invalid field with its pointer and full path', async () => {
      const res = await post({
        name: 'ab',
        taskGroups: [{ name: 'K', tasks: [{ label: 7 }, { label: 'Mop', durationInMinutes: 1000 }] }],
      }).expect(400);
      const problem = expectProblem(res, 400, 'validationFailed');
      const byPointer = Object.fromEntries(problem.errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail]));
      expect(Object.keys(byPointer).sort()).toEqual(['#/name', '#/taskGroups/0/tasks/0/label', '#/taskGroups/0/tasks/1/durationInMinutes']);
      expect(byPointer['#/taskGroups/0/tasks/0/label']).toMatch(/^taskGroups\[0\]\.tasks\[0\]\.label /);
      expect(byPointer['#/taskGroups/0/tasks/1/durationInMinutes']).toContain('999');
    });

    it('never converts types implicitly', async () => {
      const res = await post({ name: 'abc', taskGroups: [{ name: 'K', tasks: [{ label: 'Wipe', durationInMinutes: '5' }] }] }).expect(400);
      expect(expectProblem(res, 400, 'validationFailed').errors).toEqual([
        { pointer: '#/taskGroups/0/tasks/0/durationInMinutes', detail: expect.any(String) },
      ]);
    });

    it.each([
      ['a string for a nested list', { name: 'abc', taskGroups: 'kitchen' }, '#/taskGroups'],
      ['a number inside a nested list', { name: 'abc', taskGroups: [1] }, '#/taskGroups/0'],
      ['null inside a nested list', { name: 'abc', taskGroups: [{ name: 'K', tasks: [null] }] }, '#/taskGroups/0/tasks/0'],
      ['a missing required field', {}, '#/name'],
    ])('rejects %s with validationFailed', async (_label, body, pointer) => {
      const res = await post(body).expect(400);
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    });

    it.each([
      ['a list inside the list of groups', { name: 'abc', taskGroups: [[]] }, '#/taskGroups/0'],
      ['a list of groups inside the list', { name: 'abc', taskGroups: [[{ name: 'K', tasks: [] }]] }, '#/taskGroups/0'],
      [
        'a list inside a nested list',
        { name: 'abc', taskGroups: [{ name: 'K', tasks: [{ label: 'Wipe' }, [{ label: 'Mop' }]] }] },
        '#/taskGroups/0/tasks/1',
      ],
    ])('rejects %s (class-validator alone lets it through)', async (_label, body, pointer) => {
      const res = await post(body).expect(400);
      const problem = expectProblem(res, 400, 'validationFailed');
      expect(problem.errors).toEqual([{ pointer, detail: expect.stringContaining('must be an object, not a list') }]);
    });

    it('treats a request without a body as an empty object', async () => {
      const res = await api.post('/v1/test-probe/bodies').expect(400);
      expect(expectProblem(res, 400, 'validationFailed').errors).toEqual([{ pointer: '#/name', detail: expect.any(String) }]);
    });
  });

  describe('x-request-id', () => {
    it('echoes a well-formed client id, on successes and on problems alike', async () => {
      const id = 'Ab0-_.:+/=';
      const ok = await t.http.get('/v1/health').set('x-request-id', id).expect(200);
      expect(ok.headers['x-request-id']).toBe(id);
      const problem = await t.http.get('/v1/events').set('x-request-id', id).expect(401);
      expect(problem.headers['x-request-id']).toBe(id);
      expect(problem.body.requestId).toBe(id);
      const authed = await api.get('/v1/events').set('x-request-id', 'r'.repeat(200)).expect(200);
      expect(authed.headers['x-request-id']).toBe('r'.repeat(200));
    });

    it('generates a fresh id when none is sent, different per request', async () => {
      const a = await t.http.get('/v1/health').expect(200);
      const b = await t.http.get('/v1/health').expect(200);
      expect(a.headers['x-request-id']).toMatch(UUID);
      expect(b.headers['x-request-id']).toMatch(UUID);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it.each([
      ['201 characters', 'r'.repeat(201)],
      ['spaces', 'has spaces'],
      ['an empty value', ''],
      ['non-ASCII', 'caf\u00e9'],
      ['other punctuation', 'id;drop'],
    ])('replaces an id with %s by a generated one, which the problem reuses', async (_label, id) => {
      const res = await t.http.get('/v1/events').set('x-request-id', id).expect(401);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
    });

    it('carries the same id on body-parser and unknown-route problems', async () => {
      const bad = await api.post('/v1/test-probe/bodies').set('content-type', 'application/json').set('x-request-id', 'json-1').send('{');
      expect([bad.headers['x-request-id'], bad.body.requestId]).toEqual(['json-1', 'json-1']);
      const missing = await api.get('/v1/nowhere').set('x-request-id', 'route-1');
      expect([missing.headers['x-request-id'], missing.body.requestId]).toEqual(['route-1', 'route-1']);
    });
  });
});
