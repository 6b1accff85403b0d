import { getQueueToken } from '@nestjs/bullmq';
import { NestContainer } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { WebhookDeliveryProcessor } from '../../src/modules/webhooks/engine/batches/webhook-delivery.processor';
import { LOST_ATTEMPT_MESSAGE } from '../../src/modules/webhooks/engine/sending/webhook-delivery.rules';
import { CLAIM_LEASE_MS } from '../../src/modules/webhooks/engine/claims/webhook-claims.service';
import { WebhookAttemptPipeline } from '../../src/modules/webhooks/engine/pipeline/webhook-attempt-pipeline.service';
import { WebhookEnvelopeSources } from '../../src/modules/webhooks/engine/claims/webhook-envelope-sources';
import { WebhookAttemptsRepository } from '../../src/modules/webhooks/engine/settlement/webhook-attempts.repository';
import { WebhookDispatchService } from '../../src/modules/webhooks/engine/dispatch/webhook-dispatch.service';
import { WebhookMaintenanceSchedule } from '../../src/modules/webhooks/engine/maintenance/webhook-maintenance.schedule';
import { WebhookDispatchProcessor } from '../../src/modules/webhooks/engine/dispatch/webhook-dispatch.processor';
import { WEBHOOK_DELIVERY_QUEUE, WebhookQueue } from '../../src/modules/webhooks/webhook-queue.service';
import { WebhookRetentionService } from '../../src/modules/webhooks/engine/maintenance/webhook-retention.service';
import { WebhookSweepService } from '../../src/modules/webhooks/engine/maintenance/webhook-sweep.service';
import { newId, newIdAt } from '../../src/platform/ids/ids';
import { Scheduler } from '../../src/platform/scheduling/scheduler';
import { ApiClient, clientFor, createAccount, TestAccount, TestApp } from '../support/app';
import { QUICK_RETRIES, useWebhookApi, webhookTestEnv } from '../support/webhook-engine';
import { waitUntil } from '../support/wait';
import { deliveriesOf, publishEvent, subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { subscriptionRow } from '../support/webhooks-api';
import { startWorker, TestWorker } from '../support/worker';
import { EVENT_IDS } from '../../src/modules/events/events.ids';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * The engine's safety nets: the sweep (events the fast path missed, attempts whose job was lost), no loss
 * across a worker restart mid-retry, URL rules re-checked at delivery, retention. Each test starts the
 * worker(s) it needs on this file's own Redis prefix.
 */
// The scheduled sweep and retention scan the whole database, which other test files share: they are
// off, and the tests call the services scoped to this file's accounts (the scheduled runs are tested
// on a private database and Redis in webhooks-redis-loss.e2e-spec.ts).
const ENV = webhookTestEnv('delivery-recovery', QUICK_RETRIES);

describe('webhook delivery recovery', () => {
  let t: TestApp;
  let db: DataSource;
  let account: TestAccount;
  let api: ApiClient;
  let worker: TestWorker | undefined;
  const app = useWebhookApi(ENV);
  const receiver = app.receiver;

  async function insertEvent(
    accountId: string,
    eventName: string,
    extra: { createdAt?: string; dispatched?: boolean } = {},
  ): Promise<string> {
    // A row of the past has an id of its time: the id places it in its time partition (retention drops those).
    const id = extra.createdAt ? newIdAt(EVENT_IDS.event, new Date(extra.createdAt)) : newId(EVENT_IDS.event);
    await db.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, created_at, dispatched_at)
       VALUES ($1, $2, $3, 'client_sql', 'req_sql', '[{"via":"sql"}]', COALESCE($4::timestamptz, now()), CASE WHEN $5 THEN now() END)`,
      [id, accountId, eventName, extra.createdAt ?? null, extra.dispatched ?? false],
    );
    return id;
  }

  beforeAll(() => ({ t, db, account, api } = app.started()));
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  it('the API process loads no processors, nor the periodic tasks', () => {
    // (app.get of a missing provider would make Nest exit the process, so look at the module graph.)
    const modules = [...(t.app as unknown as { container: NestContainer }).container.getModules().values()];
    const providers = modules.flatMap((m) => [...m.providers.keys()]);
    expect(providers).toContain(WebhookQueue);
    for (const workerOnly of [WebhookDeliveryProcessor, WebhookDispatchProcessor, WebhookMaintenanceSchedule, Scheduler])
      expect(providers).not.toContain(workerOnly);
    expect(providers).toContain(getQueueToken(WEBHOOK_DELIVERY_QUEUE));
  });

  it('sweeps: dispatches an event that never reached the queue, and re-enqueues an attempt whose job was lost', async () => {
    worker = await startWorker(ENV);
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/sweep`);
    // Written straight to the table: no onCommitted listener, no dispatch job.
    const eventId = await insertEvent(account.accountId, 'property.create');
    const sweeper = worker.ctx.get(WebhookSweepService);
    const scope = { accountIds: [account.accountId] };
    // Younger than the 2 s grace: left to the fast path.
    expect(await sweeper.sweep(scope)).toEqual({ events: 0, deliveriesCreated: 0, lostAttempts: 0, reenqueued: 0 });
    // Both three seconds older (the subscription still predates the event): past the grace.
    await db.query(`UPDATE events SET created_at = created_at - interval '3 seconds' WHERE id = $1`, [eventId]);
    await db.query(`UPDATE webhook_subscriptions SET created_at = created_at - interval '3 seconds' WHERE id = $1`, [sub.id]);
    expect(await sweeper.sweep(scope)).toEqual({ events: 1, deliveriesCreated: 1, lostAttempts: 0, reenqueued: 0 });
    const [request] = await r.waitFor(1, 5_000);
    expect(JSON.parse(request.rawBody)).toMatchObject({
      eventName: 'property.create',
      results: [{ via: 'sql' }],
      clientRequestId: 'client_sql',
    });
    const [event] = await db.query(`SELECT dispatched_at FROM events WHERE id = $1`, [eventId]);
    expect(event.dispatched_at).not.toBeNull();

    // Dispatching again is harmless, even with dispatched_at cleared: (event, subscription) is unique.
    const dispatcher = worker.ctx.get(WebhookDispatchService);
    expect(await dispatcher.dispatch([eventId])).toBe(0);
    await db.query(`UPDATE events SET dispatched_at = NULL WHERE id = $1`, [eventId]);
    expect(await dispatcher.dispatch([eventId])).toBe(0);

    // A pending delivery long overdue with no job in Redis.
    const lostEvent = await insertEvent(account.accountId, 'jobRequest.completed', { dispatched: true });
    const lostId = newId(WEBHOOK_IDS.delivery);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, next_retry_at)
       VALUES ($1, $2, $3, $4, 'jobRequest.completed', 'pending', now() - interval '1 hour')`,
      [lostId, account.accountId, sub.id, lostEvent],
    );
    expect(await sweeper.sweep(scope)).toEqual({ events: 0, deliveriesCreated: 0, lostAttempts: 0, reenqueued: 1 });
    await r.waitFor(1, 5_000, (q) => q.headers['webhook-id'] === lostId);
    const rows = await waitForFinalDeliveries(api, sub.id, 2);
    expect(rows.map((row) => row.status)).toEqual(['delivered', 'delivered']);
    // More sweeps find nothing to do: nothing is sent twice (both final, each attempt received before it was recorded).
    expect(await sweeper.sweep(scope)).toEqual({ events: 0, deliveriesCreated: 0, lostAttempts: 0, reenqueued: 0 });
    expect(r.requests).toHaveLength(2);
  });

  it('loses no retry when the worker stops while it is delayed: the next worker sends it, delivered exactly once', async () => {
    const slowRetry = { ...ENV, WEBHOOK_RETRY_BASE_MS: '1500' };
    worker = await startWorker(slowRetry);
    const r = await receiver();
    r.enqueue({ status: 500 });
    const sub = await subscribe(api, `${r.url}/restart`);
    await publishEvent(t, account.accountId, 'property.create');
    await r.waitFor(1);
    await waitUntil(async () => (await deliveriesOf(api, sub.id))[0]?.attemptCount === 1, 5_000, 'first attempt recorded');
    await worker.close();
    worker = undefined;

    // The retry comes due while no worker runs.
    await waitUntil(
      async () =>
        (await db.query(`SELECT next_retry_at < now() AS due FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]))[0].due,
      10_000,
      'the retry to come due',
    );
    expect(r.requests).toHaveLength(1);
    worker = await startWorker(slowRetry);
    const requests = await r.waitFor(2, 8_000);
    expect(requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0', '1']);
    expect(requests[1].headers['webhook-id']).toBe(requests[0].headers['webhook-id']);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(r.requests).toHaveLength(2);
  });

  it('POSTs an attempt once when its record write fails once: the outcome is written on the next try', async () => {
    worker = await startWorker(ENV);
    const repository = worker.ctx.get(WebhookAttemptsRepository);
    jest.spyOn(repository, 'recordAttempts').mockRejectedValueOnce(new Error('injected: connection reset'));
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const r = await receiver();
    const sub = await subscribe(client, `${r.url}/record-fails-once`);
    await publishEvent(t, own.accountId, 'property.create');
    const [row] = await waitForFinalDeliveries(client, sub.id, 1);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(row.attempts).toEqual([expect.objectContaining({ responseCode: 200, errorMessage: null })]);
    expect(repository.recordAttempts).toHaveBeenCalledTimes(2);
    expect(r.requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0']);
  });

  it('never re-sends an attempt whose outcome could not be recorded: the sweep records it lost, the next attempt has a new retry count', async () => {
    worker = await startWorker(ENV);
    const repository = worker.ctx.get(WebhookAttemptsRepository);
    const recordAttempts = repository.recordAttempts.bind(repository);
    // Every write of the first attempt's outcome fails.
    jest.spyOn(repository, 'recordAttempts').mockImplementation(async (inputs) => {
      if (inputs.some((input) => input.claim === 'held' && input.expectedAttemptCount === 0))
        throw new Error('injected: database unreachable');
      return recordAttempts(inputs);
    });
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const r = await receiver();
    const sub = await subscribe(client, `${r.url}/record-fails`);
    await publishEvent(t, own.accountId, 'property.create');
    await r.waitFor(1);
    // The claim holds for WEBHOOK_TIMEOUT_MS + 2 s; until it runs out the sweep leaves the attempt alone.
    const sweeper = worker.ctx.get(WebhookSweepService);
    const scope = { accountIds: [own.accountId] };
    await waitUntil(async () => (await sweeper.sweep(scope)).lostAttempts === 1, 10_000, 'the lost attempt recorded by the sweep');
    const [row] = await waitForFinalDeliveries(client, sub.id, 1);
    expect(r.requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0', '1']);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(row.attempts[0]).toEqual({
      at: expect.any(String),
      responseCode: null,
      responseSnippet: null,
      errorMessage: LOST_ATTEMPT_MESSAGE,
      durationMs: null,
      errorClass: null,
      resolvedIp: null,
      timings: null,
      retryAfterMs: null,
    });
    expect(row.attempts[1]).toMatchObject({ responseCode: 200, errorMessage: null });
    expect((await subscriptionRow(db, sub.id)).consecutive_failures).toBe(0);
  });

  it('gives a batch claim back when loading its events fails (the database gone between the two statements): sent once, never held', async () => {
    worker = await startWorker(ENV);
    // The batch's claim commits, then its event query fails, as when PostgreSQL stops between the two.
    const envelopes = worker.ctx.get(WebhookEnvelopeSources);
    jest.spyOn(envelopes, 'of').mockRejectedValueOnce(new Error('injected: terminating connection due to administrator command'));
    const own = await createAccount(t);
    const client = clientFor(t, own);
    const r = await receiver();
    const sub = await subscribe(client, `${r.url}/claim-then-fail`);
    await publishEvent(t, own.accountId, 'property.create');
    // The sweep runs meanwhile (a claim held and renewed for ever is what it could never recover), past two claim leases.
    const sweeper = worker.ctx.get(WebhookSweepService);
    const row = await waitUntil(
      async () => {
        await sweeper.sweep({ accountIds: [own.accountId] });
        const [delivery] = await deliveriesOf(client, sub.id);
        return delivery?.status === 'delivered' ? delivery : undefined;
      },
      CLAIM_LEASE_MS * 2 + 5_000,
      'the delivery whose batch failed after its claim to be delivered',
      250,
    ).catch(async (error: Error) => {
      const rows = await db.query(
        `SELECT status, attempt_count, next_retry_at, in_flight_since, in_flight_until FROM webhook_deliveries WHERE subscription_id = $1`,
        [sub.id],
      );
      throw new Error(`${error.message}; rows: ${JSON.stringify(rows)}`);
    });
    expect(envelopes.of).toHaveBeenCalled();
    // Given back unsent: its one attempt is the first, no lost attempt recorded in between.
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(r.requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0']);
  });

  it('sends an attempt once however many runs of its job start together', async () => {
    worker = await startWorker(ENV);
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/duplicate-jobs`);
    const eventId = await insertEvent(account.accountId, 'property.create', { dispatched: true });
    const deliveryId = newId(WEBHOOK_IDS.delivery);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, next_retry_at)
       VALUES ($1, $2, $3, $4, 'property.create', 'pending', now() + interval '1 hour')`,
      [deliveryId, account.accountId, sub.id, eventId],
    );
    const deliveries = worker.ctx.get(WebhookAttemptPipeline);
    const results = await Promise.all([1, 2, 3].map(() => deliveries.attempt({ deliveryId, attempt: 0 })));
    expect(results.filter((result) => result.kind === 'attempted')).toHaveLength(1);
    expect(results.filter((result) => result.kind === 'dropped')).toHaveLength(2);
    expect(await deliveries.attempt({ deliveryId, attempt: 0 })).toEqual({ kind: 'dropped', reason: 'finished' });
    expect(r.requests).toHaveLength(1);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it('re-checks URL rules at delivery: a violation is failed_permanent at once and counts (test deliveries do not)', async () => {
    worker = await startWorker({ ...ENV, ALLOW_PRIVATE_URLS: 'false' });
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/private`, ['*'], 5); // accepted by the API, which allows private URLs
    await publishEvent(t, account.accountId, 'property.create');
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ status: 'failed_permanent', attemptCount: 1, nextRetryAt: null });
    expect(row.attempts[0]).toMatchObject({
      responseCode: null,
      responseSnippet: null,
      errorMessage: 'URL rule violation: must use https',
    });

    await api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'property.create' }).expect(202);
    const rows = await waitForFinalDeliveries(api, sub.id, 2);
    expect(rows[0]).toMatchObject({ test: true, status: 'failed_permanent' });
    expect((await subscriptionRow(db, sub.id)).consecutive_failures).toBe(1);
    expect(r.requests).toHaveLength(0);
  });

  it('retention deletes events and deliveries older than 90 days only', async () => {
    worker = await startWorker(ENV);

    const own = await createAccount(t);
    const r = await receiver();
    const sub = await subscribe(clientFor(t, own), `${r.url}/retention`);
    const day = 24 * 3600 * 1000;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day).toISOString();
    const oldEvent = await insertEvent(own.accountId, 'property.create', { createdAt: at(91), dispatched: true });
    const newEvent = await insertEvent(own.accountId, 'property.create', { createdAt: at(89), dispatched: true });
    const delivery = async (eventId: string, daysAgo: number) => {
      const id = newIdAt(WEBHOOK_IDS.delivery, new Date(at(daysAgo)));
      await db.query(
        `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status, created_at)
         VALUES ($1, $2, $3, $4, 'property.create', 'delivered', $5)`,
        [id, own.accountId, sub.id, eventId, at(daysAgo)],
      );
      return id;
    };
    const oldDelivery = await delivery(oldEvent, 91);
    const newDelivery = await delivery(newEvent, 89);
    const oldTest = newIdAt(WEBHOOK_IDS.delivery, new Date(at(95)));
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_name, test, test_payload, status, created_at)
       VALUES ($1, $2, $3, 'x.y', true, '{}', 'delivered', $4)`,
      [oldTest, own.accountId, sub.id, at(95)],
    );

    const result = await worker.ctx.get(WebhookRetentionService).run();
    expect(result.deliveries).toBeGreaterThanOrEqual(2);
    expect(result.events).toBeGreaterThanOrEqual(1);
    const events = await db.query(`SELECT id FROM events WHERE id = ANY($1)`, [[oldEvent, newEvent]]);
    expect(events.map((e: { id: string }) => e.id)).toEqual([newEvent]);
    const deliveries = await db.query(`SELECT id FROM webhook_deliveries WHERE id = ANY($1)`, [[oldDelivery, newDelivery, oldTest]]);
    expect(deliveries.map((d: { id: string }) => d.id)).toEqual([newDelivery]);
  });
});
