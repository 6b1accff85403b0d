import { DataSource } from 'typeorm';
import { EventsService } from '../../src/modules/events/events.service';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { publishUnchecked } from '../support/events';
import { sleep, waitUntil } from '../support/wait';
import { useWebhookApi, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';

/**
 * A worker process SIGKILLed in the middle of a subscription's batch (issue 23): nothing is lost (every
 * delivery ends delivered, the claims it held recovered by the sweep and sent again as new attempts) and
 * nothing is POSTed twice beyond the attempts it had in flight (no attempt number twice for a delivery).
 */
const CONCURRENCY = 4;
const ENV = webhookTestEnv('batches-kill', { WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: String(CONCURRENCY) });
const EVENTS = 60;
const ANSWER_AFTER_MS = 200;

describe('a worker killed mid-batch', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  let r: WebhookReceiver;
  const app = useWebhookApi(ENV);
  beforeAll(async () => {
    ({ t, db, account, api } = app.started());
    r = await app.receiver();
  });

  it('loses nothing and POSTs nothing twice beyond the attempts in flight', async () => {
    let inFlight = 0;
    r.respondWith(async () => {
      inFlight++;
      await sleep(ANSWER_AFTER_MS);
      inFlight--;
      return { status: 204 };
    });
    const sub = await subscribe(api, `${r.url}/killed-batch`, ['kill.batch']);
    const doomed = await app.workerProcess({}, 60_000);
    // One transaction: the deliveries are due together, claimed by the doomed worker's batches.
    const ctx = { accountId: account.accountId, requestId: 'req_kill_batch', clientRequestId: 'client_kill_batch' };
    await t.app.get(UnitOfWork).run(ctx, async (tx) => {
      for (let n = 0; n < EVENTS; n++) await publishUnchecked(t.app.get(EventsService), tx, 'kill.batch', [{ n }]);
    });

    // Killed with a batch under way: some delivered, attempts in flight, more claimed or due.
    await r.waitFor(CONCURRENCY * 2, 60_000);
    await waitUntil(async () => inFlight > 0, 10_000, 'attempts in flight', 5);
    const inFlightAtKill = inFlight;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(r.requests.length).toBeLessThan(EVENTS);

    // Another worker; the sweep (scoped to this account, as the scheduler would run it) recovers the claims once they run out.
    const worker = await app.worker();
    const sweeper = worker.ctx.get(WebhookSweepService);
    await waitUntil(
      async () => {
        await sweeper.sweep({ accountIds: [account.accountId] });
        const [row] = await db.query(
          `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*)::int AS total
             FROM webhook_deliveries WHERE account_id = $1 AND subscription_id = $2`,
          [account.accountId, sub.id],
        );
        return row.delivered === EVENTS ? row : undefined;
      },
      60_000,
      'every delivery delivered',
      500,
    );

    // Every event reached the receiver; no attempt went out twice (a delivery's attempt numbers never repeat).
    const numbers = new Set(r.requests.map((q) => JSON.parse(q.rawBody).results[0].n));
    expect(numbers.size).toBe(EVENTS);
    const attempts = r.requests.map((q) => `${q.headers['webhook-id']}/${q.headers['webhook-retry-count']}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    // A delivery received twice is one whose attempt was under way at the kill: its POST in flight, or
    // answered and waiting for the shared statement that records it (its slot already serving the next
    // POST), so at most one more subscription's worth of slots than were in flight.
    const perDelivery = new Map<string, number>();
    for (const q of r.requests)
      perDelivery.set(String(q.headers['webhook-id']), (perDelivery.get(String(q.headers['webhook-id'])) ?? 0) + 1);
    const twice = [...perDelivery.values()].filter((n) => n > 1).length;
    expect(twice).toBeLessThanOrEqual(inFlightAtKill + CONCURRENCY);
    expect([...perDelivery.values()].every((n) => n <= 2)).toBe(true);
  }, 180_000);
});
