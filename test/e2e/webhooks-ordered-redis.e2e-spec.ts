import Redis from 'ioredis';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { feedOrder, logArrivals, orderViolations, publishSeries } from '../support/ordered-webhooks';
import { PrivateRedis, startPrivateRedis } from '../support/private-services';
import { sleep, waitUntil } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * Ordered endpoints (issue 31) when Redis loses its data mid-stream: a redis-server of this file's own
 * is flushed while the head of the order waits for its retry (a delayed job, gone with the flush). The
 * sweep finds the head in PostgreSQL and sends it; the order holds and nothing is lost.
 */
const ENV = webhookTestEnv('ordered-redis', { WEBHOOK_RETRY_BASE_MS: '1000', WEBHOOK_TIMEOUT_MS: '2000' });
const EVENTS = 60;
const FAILS = 20;

describe('an ordered subscription when Redis is flushed', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    ENV.REDIS_URL = redis.url;
  });
  const engine = useWebhookEngine(ENV);
  afterAll(async () => redis?.stop());

  it('keeps the order and loses nothing', async () => {
    const { t, db, account, api, worker } = engine.started();
    const r = await engine.receiver();
    let flushed = false;
    // Event FAILS fails until Redis has been flushed: its retry job is what the flush takes.
    const log = logArrivals(r, (n) => (n === FAILS && !flushed ? { status: 500 } : { status: 200, delayMs: 5 }));
    const sub = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/ordered-redis`, eventFilters: ['ordered.redis'], ordered: true, maxRetries: 10 })
      .expect(201);
    await publishSeries(t, account.accountId, 'ordered.redis', EVENTS);
    // Flushed once the head's second failure is recorded: its next retry is a delayed job, seconds away.
    await r.waitFor(2, 20_000, (q) => JSON.parse(q.rawBody).results[0].n === FAILS);
    await waitUntil(
      async () => {
        const [row] = await db.query(
          `SELECT attempt_count FROM webhook_deliveries WHERE subscription_id = $1 AND order_tx IS NOT NULL AND status = 'pending'
            ORDER BY order_tx, event_id LIMIT 1`,
          [sub.body.id],
        );
        return row?.attempt_count >= 2;
      },
      10_000,
      'the second failure recorded',
      5,
    );
    await sleep(50);

    const client = new Redis(redis.url);
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
    flushed = true;

    const sweep = worker.ctx.get(WebhookSweepService);
    await waitUntil(
      async () => {
        await sweep.sweep({ accountIds: [account.accountId] });
        return new Set(log.arrivals.map((a) => a.n)).size === EVENTS;
      },
      60_000,
      'every event received',
      300,
    );
    expect(orderViolations(log, await feedOrder(api, 'ordered.redis', EVENTS))).toEqual([]);
    expect(log.maxInFlight()).toBe(1);
    // Each event once, but the head: its failed attempts and the one that succeeded (same webhook-id).
    expect(log.arrivals.filter((a) => a.n !== FAILS)).toHaveLength(EVENTS - 1);
    expect(new Set(log.of(FAILS).map((a) => a.deliveryId)).size).toBe(1);
    expect(sub.body.ordered).toBe(true);
  }, 120_000);
});
