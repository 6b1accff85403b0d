import { feedOrder, logArrivals, orderViolations, publishSeries } from '../support/ordered-webhooks';
import { PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';
import { TEST_RUN_ID } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { useWebhookApi, webhookTestEnv } from '../support/webhook-engine';

/**
 * Ordered endpoints (issue 31) when PostgreSQL restarts mid-stream: the worker (the built one, a child
 * process, its sweep on its scheduler) and the API run on a cluster of this file's own, stopped in
 * immediate mode (a crash: sessions killed, recovery at start) while ordered deliveries flow, then
 * started again. The order holds (the receiver's record against the feed) and nothing is lost.
 */
const ENV = webhookTestEnv('ordered-pg', {
  WEBHOOK_SWEEP_INTERVAL_MS: '500',
  WEBHOOK_RETRY_BASE_MS: '300',
  WEBHOOK_TIMEOUT_MS: '2000',
});
const EVENTS = 80;

describe('an ordered subscription when PostgreSQL restarts', () => {
  let pg: PrivatePostgres;
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    ENV.DATABASE_URL = await pg.createMigratedDatabase(`property_ops_test_${TEST_RUN_ID}_ordered_pg`);
  }, 120_000);
  const app = useWebhookApi(ENV);
  afterAll(async () => pg?.destroy());

  it('keeps the order and loses nothing', async () => {
    const { t, account, api } = app.started();
    const r = await app.receiver();
    const log = logArrivals(r, () => ({ status: 200, delayMs: 20 }));
    await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/ordered-pg`, eventFilters: ['ordered.pg'], ordered: true, maxRetries: 10 })
      .expect(201);
    await publishSeries(t, account.accountId, 'ordered.pg', EVENTS);
    await app.workerProcess({}, 60_000);
    await r.waitFor(20, 60_000);

    await pg.stop('immediate');
    const atStop = log.arrivals.length;
    await pg.start();
    await waitUntil(async () => new Set(log.arrivals.map((a) => a.n)).size === EVENTS, 90_000, 'every event received', 200);
    expect(atStop).toBeLessThan(EVENTS);

    // The feed, read again until the API's pool has its connections back.
    const feed = await waitUntil(() => feedOrder(api, 'ordered.pg', EVENTS).catch(() => undefined), 30_000, 'the feed');
    expect(orderViolations(log, feed)).toEqual([]);
    expect(log.maxInFlight()).toBe(1);
    const perDelivery = new Map<string, number>();
    for (const a of log.arrivals) perDelivery.set(a.deliveryId, (perDelivery.get(a.deliveryId) ?? 0) + 1);
    expect([...perDelivery.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(1);
  }, 240_000);
});
