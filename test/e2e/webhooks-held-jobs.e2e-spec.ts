import { DataSource } from 'typeorm';
import { queuePrefix } from '../../src/platform/queue/queue-prefix';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { deliveryJobId, WEBHOOK_DELIVERY_QUEUE, WebhookQueue } from '../../src/modules/webhooks/webhook-queue.service';
import { newId } from '../../src/platform/ids/ids';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { finishJobAndKeepIt, holdNextJobInKilledProcess, QueueTarget } from '../support/queue-jobs';
import { waitUntil } from '../support/wait';
import { useWebhookApi, webhookTestEnv } from '../support/webhook-engine';
import { WebhookReceiver } from '../support/webhook-receiver';
import { subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';
import { EVENT_IDS } from '../../src/modules/events/events.ids';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * A due attempt whose queue job still exists but will not run (issue 20): left active by a worker that
 * was killed before it claimed the attempt, or finished and kept. The sweep replaces such a job, so the
 * attempt goes out within a sweep interval plus the claim lease, once. The sweep is called scoped to this
 * file's account, like webhooks-delivery-recovery.e2e-spec.ts; every wait polls the receiver.
 */
const WEBHOOK_TIMEOUT_MS = 1_000;
const ENV = webhookTestEnv('held-jobs', { WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS) });
/** The delivery worker's BullMQ lock (WebhookDeliveryProcessor): a dead worker's job keeps its id this long. */
const WORKER_LOCK_MS = WEBHOOK_TIMEOUT_MS + 30_000;
/**
 * Sent before the dead worker's lock could have freed the job (with 5 s to spare), so it was the sweep's
 * replacement that sent it, not BullMQ's stalled check; a bound on what happened, not on the machine's speed.
 */
const RESEND_BOUND_MS = WORKER_LOCK_MS - 5_000;

describe('webhook attempts whose queue job is held', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  let r: WebhookReceiver;
  let worker: TestWorker | undefined;
  let target: QueueTarget;

  const app = useWebhookApi(ENV);
  beforeAll(async () => {
    ({ t, db, account, api } = app.started());
    r = await app.receiver();
    target = { redis: t.config.redis, prefix: queuePrefix(ENV.REDIS_PREFIX, WEBHOOK_DELIVERY_QUEUE), queueName: WEBHOOK_DELIVERY_QUEUE };
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  /** A committed pending delivery due a minute ago, whose first attempt nobody claimed; no job added. */
  async function dueDelivery(subscriptionId: string): Promise<string> {
    const eventId = newId(EVENT_IDS.event);
    await db.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, dispatched_at)
       VALUES ($1, $2, 'property.create', 'client_sql', 'req_sql', '[]', now())`,
      [eventId, account.accountId],
    );
    const id = newId(WEBHOOK_IDS.delivery);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, next_retry_at, created_at)
       VALUES ($1, $2, $3, $4, 'property.create', 'pending', now() - interval '1 minute', now() - interval '1 minute')`,
      [id, account.accountId, subscriptionId, eventId],
    );
    return id;
  }

  /** Sweeps (as the scheduler would) until the receiver has the delivery, within the guarantee's bound. */
  async function sweepUntilReceived(deliveryId: string): Promise<void> {
    const sweeper = worker!.ctx.get(WebhookSweepService);
    await waitUntil(
      async () => {
        await sweeper.sweep({ accountIds: [account.accountId] });
        return r.requests.some((q) => q.headers['webhook-id'] === deliveryId);
      },
      RESEND_BOUND_MS,
      `delivery ${deliveryId} to be sent`,
      250,
    );
  }

  async function expectSentOnce(subscriptionId: string, deliveryId: string): Promise<void> {
    const [row] = await waitForFinalDeliveries(api, subscriptionId, 1);
    expect(row).toMatchObject({ id: deliveryId, status: 'delivered', attemptCount: 1 });
    const sent = r.requests.filter((q) => q.headers['webhook-id'] === deliveryId);
    expect(sent.map((q) => q.headers['webhook-retry-count'])).toEqual(['0']);
  }

  it('sends an attempt whose job a killed worker left active, unclaimed, long before its lock runs out', async () => {
    const sub = await subscribe(api, `${r.url}/killed-holder`);
    const deliveryId = await dueDelivery(sub.id);
    await t.app.get(WebhookQueue).enqueueDelivery(deliveryId, { subscriptionId: sub.id });
    // Taken into active by a process killed before it claimed the attempt: BullMQ holds the id for its lock.
    expect(await holdNextJobInKilledProcess(target, WORKER_LOCK_MS)).toBe(deliveryJobId(deliveryId, 0));

    worker = await startWorker(ENV);
    await sweepUntilReceived(deliveryId);
    await expectSentOnce(sub.id, deliveryId);
  }, 90_000);

  it.each(['completed', 'failed'] as const)(
    'sends an attempt whose job was %s and kept',
    async (state) => {
      const sub = await subscribe(api, `${r.url}/kept-${state}`);
      const deliveryId = await dueDelivery(sub.id);
      await finishJobAndKeepIt(target, deliveryJobId(deliveryId, 0), { deliveryId, attempt: 0 }, state);

      worker = await startWorker(ENV);
      await sweepUntilReceived(deliveryId);
      await expectSentOnce(sub.id, deliveryId);
    },
    90_000,
  );
});
