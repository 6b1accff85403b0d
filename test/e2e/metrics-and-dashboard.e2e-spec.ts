import { clientFor, createAccount, startApp, TestApp } from '../support/app';
import { dropRedisPrefix } from '../support/test-env';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const ADMIN = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct-horse-battery' };
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-metrics`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('API metrics at /metrics and the queue dashboard at /admin/queues', () => {
  let t: TestApp;
  let off: TestApp;

  beforeAll(async () => {
    [t, off] = await Promise.all([
      // One failed authentication per hour from this test's address: the second is a 429. A Redis prefix
      // of its own, so other files' failed authentications from 127.0.0.1 in this run do not count here.
      startApp({
        REDIS_PREFIX,
        METRICS_TOKEN,
        ...ADMIN,
        RATE_LIMIT_FAILED_AUTH_PER_SECOND: '1',
        RATE_LIMIT_FAILED_AUTH_BURST: '1',
        RATE_LIMIT_WINDOW_SECONDS: '3600',
      }),
      startApp(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), off?.close()]);
    await dropRedisPrefix(t.config.redis, REDIS_PREFIX);
  });

  it('are not mounted when METRICS_TOKEN, ADMIN_USER and ADMIN_PASSWORD are unset', async () => {
    await off.http.get('/metrics').expect(404);
    await off.http.get('/admin/queues').expect(404);
  });

  it('/metrics needs the bearer token', async () => {
    await t.http.get('/metrics').expect(401);
    await t.http.get('/metrics').set('authorization', 'Bearer wrong-token-of-the-same-size-000').expect(401);
  });

  it('counts requests by route template and status, and rate-limit rejections', async () => {
    const api = clientFor(t, await createAccount(t));
    await api.get('/v1/properties').expect(200);
    await api.get('/v1/properties/prop_00000000000000000000000000').expect(404);
    await t.http.get('/v1/properties').set('x-api-key', 'popk_unknown').expect(401);
    await t.http.get('/v1/properties').set('x-api-key', 'popk_unknown').expect(429);

    const res = await t.http.get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.text;
    for (const family of [
      'pop_http_request_duration_seconds',
      'pop_rate_limit_rejections_total',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect({ family, found: text.includes(`# TYPE ${family} `) }).toEqual({ family, found: true });
    }
    expect(text).toContain('pop_http_request_duration_seconds_count{method="GET",route="/v1/properties",status="200"} 1');
    expect(text).toContain('pop_http_request_duration_seconds_count{method="GET",route="/v1/properties/:propertyId",status="404"} 1');
    expect(text).toContain('pop_rate_limit_rejections_total{scope="address"} 1');
    // The worker's families are the worker's (test/e2e/shutdown-and-logs.e2e-spec.ts scrapes them).
    expect(text).not.toContain('pop_webhook_deliveries_total');
  });

  it('Bull Board needs the admin credentials and shows the webhook, reminder and calendar sync queues', async () => {
    await t.http.get('/admin/queues').expect(401).expect('www-authenticate', /Basic/);
    await t.http.get('/admin/queues').set('authorization', basic('ops', 'wrong-password-xx')).expect(401);
    await t.http.get('/admin/queues/api/queues').expect(401);
    const page = await t.http.get('/admin/queues').set('authorization', basic(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD)).expect(200);
    expect(page.text).toContain('<html');
    const queues = await t.http
      .get('/admin/queues/api/queues')
      .set('authorization', basic(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD))
      .expect(200);
    expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([
      'calendar-sync',
      'reminder-due',
      'webhook-delivery',
      'webhook-dispatch',
    ]);
  });
});
