import Redis from 'ioredis';
import { version as packageVersion } from '../../package.json';
import { REDIS } from '../../src/platform/redis/redis.module';
import { clientFor, createAccount, startApp, TestApp } from '../support/app';
import { HandleTracker, trackHandles } from '../support/handles';

describe('GET /v1/health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers without a key, with the package version', async () => {
    const res = await t.http.get('/v1/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', version: packageVersion, checks: { database: 'up', redis: 'up' } });
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('answers with JSON, whatever key or query is sent', async () => {
    const res = await t.http.get('/v1/health?verbose=1').set('x-api-key', 'not-a-key').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.status).toBe('ok');
  });
});

describe('GET /v1/health with Redis unreachable', () => {
  let t: TestApp;
  let handles: HandleTracker;
  beforeAll(async () => {
    handles = trackHandles();
    // Port 1: nothing listens, so every connection attempt fails at once.
    t = await startApp({ REDIS_URL: 'redis://127.0.0.1:1' });
  });

  it('answers 503 naming the failed dependency, though its check never gets an answer', async () => {
    // The PING waits in ioredis' offline queue for a connection that never comes: only the check's deadline ends it.
    expect(t.app.get<Redis>(REDIS).status).not.toBe('ready');
    const res = await t.http.get('/v1/health').expect(503);
    expect(res.body).toEqual({ status: 'unavailable', version: expect.any(String), checks: { database: 'up', redis: 'down' } });
  });

  it('keeps serving authenticated requests (rate limits fall back to memory)', async () => {
    const account = await createAccount(t);
    const res = await clientFor(t, account).get('/v1/events').expect(200);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('still shuts down: closing drops the connections it never got instead of waiting for them, and leaves nothing running', async () => {
    // A QUIT would queue behind the offline PINGs and never settle; the test's own time-out is the judge.
    await expect(t.close()).resolves.toBeUndefined();
    // Its queues' clients too: they went on reconnecting every second, and this file's jest worker could not exit.
    await handles.expectNoneLeft();
  });
});
