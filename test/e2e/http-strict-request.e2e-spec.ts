import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createProperty } from '../support/properties';

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

function expectLimitHeaders(res: { headers: Record<string, unknown> }): void {
  for (const name of LIMIT_HEADERS) expect({ name, value: res.headers[name] }).toEqual({ name, value: expect.any(String) });
}

describe('unreadable bodies are answered after auth and rate limiting', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startApp();
    api = clientFor(t, await createAccount(t));
  });
  afterAll(() => t.close());

  it('a malformed body without a valid key is a 401, not a 400', async () => {
    const res = await t.http.post('/v1/properties').set('content-type', 'application/json').send('{').expect(401);
    expectProblem(res, 401, 'unauthorized', '/v1/properties');
    expect(res.body.detail).toBe('Missing or invalid x-api-key');
    const wrongKey = await t.http.post('/v1/properties').set('x-api-key', 'popk_nope').set('content-type', 'text/plain').send('hi');
    expectProblem(wrongKey, 401, 'unauthorized', '/v1/properties');
  });

  it('malformed JSON with a valid key is a 400 carrying the rate-limit headers, and counts against the limit', async () => {
    const first = await api.post('/v1/properties').set('content-type', 'application/json').send('{"name":').expect(400);
    expectProblem(first, 400, 'malformedJson', '/v1/properties');
    expectLimitHeaders(first);
    const second = await api.patch('/v1/properties/prop_x').set('content-type', 'application/json').send('[').expect(400);
    expectProblem(second, 400, 'malformedJson', '/v1/properties/prop_x');
    expect(Number(second.headers['x-ratelimit-remaining'])).toBeLessThan(Number(first.headers['x-ratelimit-remaining']));
  });

  it('415 and 413 with a valid key carry the rate-limit headers too', async () => {
    const unsupported = await api.post('/v1/checklists').set('content-type', 'text/plain').send('title=x').expect(415);
    expectProblem(unsupported, 415, 'unsupportedMediaType', '/v1/checklists');
    expectLimitHeaders(unsupported);
    const huge = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const tooLarge = await api.post('/v1/properties').set('content-type', 'application/json').send(huge).expect(413);
    expectProblem(tooLarge, 413, 'payloadTooLarge', '/v1/properties');
    expectLimitHeaders(tooLarge);
  });

  it('an unknown route is still a 404 whatever its body', async () => {
    const res = await api.post('/v1/no-such-route').set('content-type', 'application/json').send('{').expect(404);
    expectProblem(res, 404, 'notFound', '/v1/no-such-route');
  });
});
