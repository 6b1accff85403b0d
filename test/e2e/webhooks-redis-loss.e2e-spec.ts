import { DataSource } from 'typeorm';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { validProperty } from '../support/properties';
import { PrivateDatabase, PrivateRedis, PrivateServices, startPrivateServices } from '../support/private-services';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { publishEvent, subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';
import { startWorker, TestWorker } from '../support/worker';

/**
 * Losing Redis, as an operator would: a redis-server of this file's own is stopped (its data gone) and
 * started again empty, worker processes are killed or told to stop. The sweep runs on its scheduler,
 * so the file has its own database too. Nothing here waits a fixed time: every wait polls state.
 */
describe('webhook delivery when Redis is lost', () => {
  let db: PrivateDatabase;
  let redis: PrivateRedis;
  let services: PrivateServices | undefined;
  let env: Record<string, string>;
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;
  const receivers: WebhookReceiver[] = [];
  const workers: TestWorker[] = [];
  const processes: WorkerProcess[] = [];

  async function receiver(): Promise<WebhookReceiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function worker(overrides: Record<string, string> = {}): Promise<TestWorker> {
    const w = await startWorker({ ...env, ...overrides });
    workers.push(w);
    return w;
  }

  async function workerProcess(overrides: Record<string, string> = {}): Promise<WorkerProcess> {
    const p = await spawnWorkerProcess({ ...env, ...overrides });
    processes.push(p);
    return p;
  }

  async function deliveryRows(subscriptionId: string) {
    return db.query<{ id: string; status: string; attempt_count: number }>(
      `SELECT id, status, attempt_count FROM webhook_deliveries WHERE subscription_id = $1`,
      [subscriptionId],
    );
  }

  beforeAll(async () => {
    services = await startPrivateServices('redis_loss', {
      REDIS_PREFIX: 'pop',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '500',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    });
    ({ db, redis, env } = services);
    t = await startApp(env);
    account = await createAccount(t);
    api = clientFor(t, account);
  });
  afterEach(async () => {
    await redis.start();
    for (const p of processes.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await services?.close();
  });

  it('commits a write while Redis is down (the outbox) and delivers it once Redis is back, empty', async () => {
    await worker();
    const r = await receiver();
    const sub = await subscribe(api, `${r.url}/outbox`, ['property.*']);
    await redis.stop();

    const created = await api.post('/v1/properties').send(validProperty()).expect(201);
    const [event] = await db.query<{ id: string }>(`SELECT id FROM events WHERE account_id = $1 AND event_name = 'property.create'`, [
      account.accountId,
    ]);
    expect(event).toBeDefined();
    expect(r.requests).toHaveLength(0);

    await redis.start();
    const [request] = await r.waitFor(1, 20_000);
    expect(JSON.parse(request.rawBody)).toMatchObject({ eventName: 'property.create', results: [created.body] });
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row).toMatchObject({ eventId: event.id, status: 'delivered', attemptCount: 1 });
  });

  it('loses no delivery when Redis restarts empty while retries wait in it, and sends no attempt twice', async () => {
    await worker();
    const r = await receiver();
    r.respondWith((request) => ({ status: request.headers['webhook-retry-count'] === '0' ? 500 : 204 }));
    const sub = await subscribe(api, `${r.url}/restart`);
    for (let i = 0; i < 5; i++) await publishEvent(t, account.accountId, 'jobRequest.completed');
    // Every first attempt failed and its retry (a delayed job) waits in Redis.
    await waitUntil(
      async () => {
        const rows = await deliveryRows(sub.id);
        return rows.length === 5 && rows.every((row) => row.status === 'pending' && row.attempt_count === 1);
      },
      15_000,
      'five deliveries waiting for their first retry',
    );
    await redis.stop();
    await redis.start();

    const rows = await waitForFinalDeliveries(api, sub.id, 5, 30_000);
    expect(rows.every((row) => row.status === 'delivered' && row.attemptCount === 2)).toBe(true);
    const byDelivery = new Map<string, string[]>();
    for (const q of r.requests) {
      const id = String(q.headers['webhook-id']);
      byDelivery.set(id, [...(byDelivery.get(id) ?? []), String(q.headers['webhook-retry-count'])]);
    }
    expect([...byDelivery.values()].map((counts) => counts.sort())).toEqual(Array(5).fill(['0', '1']));
  });

  it('sends the attempt of a worker killed mid-POST again as a new attempt, never with the same retry count', async () => {
    const r = await receiver();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    r.respondWith(async (request) => {
      if (request.headers['webhook-retry-count'] === '0') await held;
      return { status: 204 };
    });
    const sub = await subscribe(api, `${r.url}/killed`);
    const doomed = await workerProcess({ WEBHOOK_SWEEP_INTERVAL_MS: '0' });
    await publishEvent(t, account.accountId, 'property.create');
    await r.waitFor(1, 15_000);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    release();

    // Another worker's sweep finds the claim run out (WEBHOOK_TIMEOUT_MS + 2 s) and sends the next attempt.
    await worker();
    const [row] = await waitForFinalDeliveries(api, sub.id, 1, 20_000);
    expect(r.requests.map((q) => q.headers['webhook-retry-count'])).toEqual(['0', '1']);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(row.attempts[0]).toMatchObject({
      responseCode: null,
      durationMs: null,
      errorMessage: expect.stringMatching(/^outcome unknown/),
    });
  });

  it('exits on SIGTERM while Redis is down, having logged the outage once per Redis client', async () => {
    const stopping = await workerProcess();
    await redis.stop();
    const outageLines = () => stopping.logs().filter((line) => line.msg?.startsWith('Redis unavailable'));
    await waitUntil(async () => outageLines().length >= 3, 15_000, 'the worker to notice the outage');
    stopping.child.kill('SIGTERM');
    const { code } = await stopping.exited;
    expect(code).toBe(0);

    const perClient = new Map<string, number>();
    for (const line of outageLines()) perClient.set(String(line.redisClient), (perClient.get(String(line.redisClient)) ?? 0) + 1);
    expect([...perClient.values()].every((count) => count === 1)).toBe(true);
    expect(perClient.has('webhook-delivery worker')).toBe(true);
    expect(stopping.stderr()).not.toContain('Unhandled error event');
  });

  it('closes the API while Redis is down', async () => {
    const other = await startApp(env);
    await redis.stop();
    await publishEvent(other, account.accountId, 'property.create');
    await other.close();
    expect(other.app.get(DataSource).isInitialized).toBe(false);
  });
});
