import { createPlatformClient, parseRetryAfter, retryDelayMs, retryingFetch } from '../src';

describe('parseRetryAfter / retryDelayMs', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('reads seconds and HTTP dates, nothing else', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
  it('caps the wait, and backs off exponentially without Retry-After', () => {
    const limits = { maxDelayMs: 10_000, baseDelayMs: 100 };
    expect(retryDelayMs('3600', 0, limits, now)).toBe(10_000);
    expect(retryDelayMs(null, 3, limits, now)).toBeGreaterThanOrEqual(400);
    expect(retryDelayMs(null, 3, limits, now)).toBeLessThanOrEqual(800);
  });
});

describe('retryingFetch', () => {
  function scripted(statuses: number[], retryAfter = '1') {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      const status = statuses[seen.length - 1] ?? 200;
      return new Response(JSON.stringify({ n: seen.length, body: await request.text() }), {
        status,
        headers: status === 200 ? {} : { 'retry-after': retryAfter },
      });
    };
    return { fetch, seen };
  }

  it('retries 429 and 503 after Retry-After, with one Idempotency-Key for every attempt of a create', async () => {
    const { fetch, seen } = scripted([503, 429]);
    const waits: number[] = [];
    const retrying = retryingFetch(fetch, {}, async (ms) => void waits.push(ms));
    const response = await retrying(new Request('http://api.test/v1/bookings', { method: 'POST', body: '{"a":1}' }));
    expect(await response.json()).toEqual({ n: 3, body: '{"a":1}' });
    expect(waits).toEqual([1000, 1000]);
    const keys = seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('gives no key to a route that takes none, keeps one the caller set, and does not retry other statuses', async () => {
    const plain = scripted([500]);
    const response = await retryingFetch(
      plain.fetch,
      {},
      async () => undefined,
    )(new Request('http://api.test/v1/checklists', { method: 'POST', body: '{}' }));
    expect(response.status).toBe(500);
    expect(plain.seen).toHaveLength(1);
    expect(plain.seen[0].headers.has('idempotency-key')).toBe(false);
    const own = scripted([503]);
    await retryingFetch(
      own.fetch,
      {},
      async () => undefined,
    )(new Request('http://api.test/v1/properties', { method: 'POST', body: '{}', headers: { 'idempotency-key': 'mine' } }));
    expect(own.seen.map((r) => r.headers.get('idempotency-key'))).toEqual(['mine', 'mine']);
  });

  it('gives up after maxRetries, answering the last response', async () => {
    const { fetch, seen } = scripted([503, 503, 503]);
    const response = await retryingFetch(fetch, { maxRetries: 2 }, async () => undefined)(new Request('http://api.test/v1/properties'));
    expect(response.status).toBe(503);
    expect(seen).toHaveLength(3);
  });
});

describe('paginate', () => {
  it('follows nextCursor while hasMore, with the list filters, and `after` on the event feed', async () => {
    const urls: URL[] = [];
    const pages: Record<string, unknown> = {
      '': { data: [{ bookingId: 'a' }, { bookingId: 'b' }], nextCursor: 'b', hasMore: true },
      b: { data: [{ bookingId: 'c' }], nextCursor: null, hasMore: false },
    };
    const fetch = async (request: Request) => {
      const url = new URL(request.url);
      urls.push(url);
      const cursor = url.searchParams.get('cursor') ?? url.searchParams.get('after') ?? '';
      return Response.json(pages[cursor]);
    };
    const { paginate } = createPlatformClient({ baseUrl: 'http://api.test/', apiKey: 'k', fetch });
    const ids: string[] = [];
    const window = { dateFrom: '2030-01-01T00:00:00Z', dateTo: '2030-02-01T00:00:00Z' };
    for await (const booking of paginate('/v1/bookings', { query: { ...window, propertyId: 'prop_1', limit: 2 } }))
      ids.push(booking.bookingId);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(urls.map((u) => `${u.pathname}?${u.searchParams}`)).toEqual([
      '/v1/bookings?dateFrom=2030-01-01T00%3A00%3A00Z&dateTo=2030-02-01T00%3A00%3A00Z&propertyId=prop_1&limit=2',
      '/v1/bookings?dateFrom=2030-01-01T00%3A00%3A00Z&dateTo=2030-02-01T00%3A00%3A00Z&propertyId=prop_1&limit=2&cursor=b',
    ]);
    urls.length = 0;
    for await (const _ of paginate('/v1/events')) void _;
    expect(urls[1].searchParams.get('after')).toBe('b');
  });
});
