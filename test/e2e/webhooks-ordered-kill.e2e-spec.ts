import { EventsService } from '../../src/modules/events/events.service';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { publishUnchecked } from '../support/events';
import { feedOrder, logArrivals, orderViolations } from '../support/ordered-webhooks';
import { waitUntil } from '../support/wait';
import { useWebhookApi, webhookTestEnv } from '../support/webhook-engine';

/**
 * Ordered endpoints (issue 31): a worker process SIGKILLed mid-attempt with 300 ordered deliveries
 * queued. The order holds (the receiver's record against the feed), nothing is lost, and the only
 * repeat is the delivery that was in flight, sent again (same webhook-id) before anything after it.
 */
const ENV = webhookTestEnv('ordered-kill', { WEBHOOK_TIMEOUT_MS: '5000' });
const EVENTS = 300;
const PER_TRANSACTION = 10;

describe('an ordered subscription when its worker is killed', () => {
  const app = useWebhookApi(ENV);

  it('keeps the order, loses nothing and repeats only the attempt in flight', async () => {
    const { t, account, api } = app.started();
    const r = await app.receiver();
    const log = logArrivals(r, () => ({ status: 204, delayMs: 15 }));
    const sub = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/ordered-kill`, eventFilters: ['ordered.kill'], ordered: true })
      .expect(201);
    // Queued before any worker runs: 300 deliveries in their order, from transactions of ten events.
    for (let n = 0; n < EVENTS; n += PER_TRANSACTION) {
      const ctx = { accountId: account.accountId, requestId: `req_kill_${n}`, clientRequestId: `client_kill_${n}` };
      await t.app.get(UnitOfWork).run(ctx, async (tx) => {
        for (let i = n; i < n + PER_TRANSACTION; i++) await publishUnchecked(t.app.get(EventsService), tx, 'ordered.kill', [{ n: i }]);
      });
    }
    const doomed = await app.workerProcess({}, 60_000);
    await r.waitFor(40, 60_000);
    // Killed with an attempt in flight (arrived, not answered yet).
    await waitUntil(async () => log.arrivals.some((a) => a.answered === undefined), 10_000, 'an attempt in flight', 1);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const atKill = log.arrivals.length;
    expect(atKill).toBeLessThan(EVENTS);

    // Another worker; the sweep records the lost attempt once its claim runs out and sends it again.
    const worker = await app.worker();
    const sweep = worker.ctx.get(WebhookSweepService);
    await waitUntil(
      async () => {
        await sweep.sweep({ accountIds: [account.accountId] });
        return new Set(log.arrivals.map((a) => a.n)).size === EVENTS;
      },
      120_000,
      'every event received',
      500,
    );
    const feed = await feedOrder(api, 'ordered.kill', EVENTS);
    expect(orderViolations(log, feed)).toEqual([]);
    const perDelivery = new Map<string, number>();
    for (const a of log.arrivals) perDelivery.set(a.deliveryId, (perDelivery.get(a.deliveryId) ?? 0) + 1);
    const repeated = [...perDelivery.entries()].filter(([, count]) => count > 1);
    expect(repeated.length).toBeLessThanOrEqual(1);
    expect(repeated.every(([, count]) => count === 2)).toBe(true);
    expect(log.arrivals).toHaveLength(EVENTS + repeated.length);
    expect(log.maxInFlight()).toBe(1);
    expect(sub.body.ordered).toBe(true);
  }, 240_000);
});
