import { DataSource } from 'typeorm';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { waitUntil } from '../support/wait';
import { QUICK_RETRIES, useWebhookApi, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { deliveriesOf, publishEvent, subscribe } from '../support/webhooks';

/**
 * A replay resumes after its worker is killed (SIGKILL, mid-run) and emits each delivery once, to
 * events whose delivery failed and to those that never had one (the subscription was disabled): the
 * cursor moves in the transaction that opens a batch's deliveries, and the resumed run first sends what
 * the killed one opened and had not sent (issue 13, an extension of the spec).
 */
const ENV = webhookTestEnv('replay-resume', { ...QUICK_RETRIES, WEBHOOK_REPLAY_RATE_PER_SECOND: '4' });
const EVENTS = 16;

describe('webhook replay resumed after a worker kill', () => {
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

  it('delivers every event of the window once after the replaying worker is killed mid-run', async () => {
    // The outage: every delivery fails (one retry each); the tenth failure in a row disables the
    // subscription, so the later events get no delivery at all. Then it is fixed and enabled again.
    r.respondWith(() => ({ status: 500 }));
    const sub = await subscribe(api, `${r.url}/resume`, ['property.*'], 1);
    const since = new Date(Date.now() - 1000).toISOString();
    const outageWorker = await app.worker();
    const events: Array<{ id: string }> = [];
    for (let i = 0; i < EVENTS; i++) events.push(await publishEvent(t, account.accountId, 'property.create'));
    await waitUntil(
      async () => {
        const [{ undispatched }] = await db.query(
          `SELECT count(*)::int AS undispatched FROM events WHERE id = ANY($1) AND dispatched_at IS NULL`,
          [events.map((e) => e.id)],
        );
        const rows = await deliveriesOf(api, sub.id);
        return undispatched === 0 && rows.length > 0 && rows.every((row) => row.status !== 'pending');
      },
      30_000,
      'the outage to settle',
    );
    await outageWorker.close();
    await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: true }).expect(200);
    const outage = r.requests.length;
    r.respondWith(() => ({ status: 204 }));

    // A worker process runs the replay (4 a second) and is killed a few deliveries in.
    const doomed = await app.workerProcess();
    const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true }).expect(202);
    expect(started.body.total).toBe(EVENTS);
    await r.waitFor(outage + 4, 20_000);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const beforeResume = r.requests.length - outage;
    expect(beforeResume).toBeLessThan(EVENTS);

    // Another worker takes the stalled replay job over (and its sweep settles an attempt the kill cut short).
    const worker = await app.worker();
    const sweep = worker.ctx.get(WebhookSweepService);
    const done = await waitUntil(
      async () => {
        await sweep.sweep({ accountIds: [account.accountId] });
        const res = await api.get(`/v1/webhooks/${sub.id}/replays/${started.body.id}`).expect(200);
        const rows = await deliveriesOf(api, sub.id);
        return res.body.status === 'completed' && rows.every((row) => row.status === 'delivered') ? res.body : undefined;
      },
      45_000,
      'the replay to complete and every delivery to be delivered',
      200,
    ).catch(async (error) => {
      const res = await api.get(`/v1/webhooks/${sub.id}/replays/${started.body.id}`);
      const rows = await deliveriesOf(api, sub.id);
      throw new Error(`${(error as Error).message}: replay ${JSON.stringify(res.body)}, statuses ${rows.map((row) => row.status)}`);
    });
    expect(done).toMatchObject({ total: EVENTS, done: EVENTS, delivered: EVENTS, failed: 0 });

    // Each event's delivery reached the receiver under its original webhook-id; one sent twice only if the
    // kill cut its attempt short (recorded as lost: at-least-once), never with the same retry count.
    const replayed = r.requests.slice(outage);
    const ids = replayed.map((q) => String(q.headers['webhook-id']));
    const rows = await deliveriesOf(api, sub.id);
    expect(rows).toHaveLength(EVENTS);
    expect(new Set(ids)).toEqual(new Set(rows.map((row) => row.id)));
    for (const row of rows) {
      const sent = replayed.filter((q) => q.headers['webhook-id'] === row.id);
      const lost = row.attempts.filter((a: { errorMessage: string | null }) => a.errorMessage?.startsWith('outcome unknown')).length;
      expect({ id: row.id, sent: sent.length }).toEqual({ id: row.id, sent: 1 + lost });
      expect(new Set(sent.map((q) => q.headers['webhook-retry-count'])).size).toBe(sent.length);
    }
  }, 120_000);
});
