import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { validProperty } from '../support/properties';
import { cli } from '../support/private-redis-cluster';
import { PrivateRedisSentinel, startPrivateRedisSentinel } from '../support/private-redis-sentinel';
import { createPrivateDatabase, PrivateDatabase } from '../support/private-services';
import { sleep, waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';

const WRITES_PER_SECOND = 20;

interface Write {
  startedAt: number;
  status: number;
  propertyId?: string;
}

/**
 * Redis behind Sentinel (REDIS_SENTINELS): a primary, a replica and three sentinels of this file's own.
 * Under a steady stream of writes the primary is killed and stays dead: the sentinels promote the
 * replica, and the API and the worker (a process of its own) follow it with nothing lost.
 */
describe('Redis behind Sentinel: the primary killed under writes', () => {
  let db: PrivateDatabase;
  let sentinel: PrivateRedisSentinel | undefined;
  let t: TestApp;
  let api: ApiClient;
  let r: WebhookReceiver;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    db = await createPrivateDatabase('redis_sentinel');
    sentinel = await startPrivateRedisSentinel();
    const env = {
      DATABASE_URL: db.url,
      REDIS_SENTINELS: sentinel.sentinels,
      REDIS_SENTINEL_NAME: sentinel.name,
      REDIS_PREFIX: 'pop',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    };
    t = await startApp(env);
    api = clientFor(t, await createAccount(t));
    r = await startReceiver();
    worker = await spawnWorkerProcess(env);
  }, 60_000);
  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await worker?.exited;
    await t?.close();
    await r?.close();
    await sentinel?.stop();
    await db?.drop();
  });

  it('follows the promoted replica: only 503 meanwhile, health sees Redis within 15 s, nothing lost', async () => {
    expect(t.config.redis).toMatchObject({ mode: 'sentinel', name: sentinel!.name });
    await subscribe(api, `${r.url}/sentinel`, ['property.create']);
    const writes: Write[] = [];
    const pending: Array<Promise<void>> = [];
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        const startedAt = Date.now();
        pending.push(
          api
            .post('/v1/properties')
            .send(validProperty())
            .then((res) => void writes.push({ startedAt, status: res.status, propertyId: res.body?.id })),
        );
        await sleep(1000 / WRITES_PER_SECOND);
      }
    })();

    await sleep(2_000);
    const oldPrimary = await sentinel!.primaryPort();
    const killedAt = Date.now();
    sentinel!.processOf(oldPrimary).kill('SIGKILL');

    const newPrimary = await waitUntil(
      async () => {
        const port = await sentinel!.primaryPort().catch(() => oldPrimary);
        if (port === oldPrimary) return undefined;
        const health = await t.http.get('/v1/health');
        return health.status === 200 && health.body.checks.redis === 'up' ? port : undefined;
      },
      15_000,
      'the health check to see Redis on the promoted replica',
    );
    const healthyAt = Date.now();
    await sleep(3_000);
    streaming = false;
    await stream;
    await Promise.all(pending);
    process.stdout.write(`sentinel failover: health up ${healthyAt - killedAt} ms after the kill, ${writes.length} writes\n`);

    expect(healthyAt - killedAt).toBeLessThan(15_000);
    expect(writes.filter((w) => w.status !== 201 && w.status !== 503)).toEqual([]);
    expect(writes.filter((w) => w.startedAt >= healthyAt && w.status !== 201)).toEqual([]);

    // Every committed write's event delivered: the worker follows the new primary too, and nothing was lost.
    const ids = new Set(writes.filter((w) => w.status === 201).map((w) => w.propertyId));
    const delivered = await r.waitFor(ids.size, 30_000);
    const deliveredIds = new Set(
      delivered.map((request) => (JSON.parse(request.rawBody) as { results: Array<{ id: string }> }).results[0].id),
    );
    expect([...ids].filter((id) => !deliveredIds.has(id!))).toEqual([]);

    // The API's and the worker's connections are on the new primary (a dozen and more: queues, workers, limiter, shared).
    const clients = Number(/connected_clients:(\d+)/.exec(await cli(newPrimary!, 'info', 'clients'))![1]);
    expect(clients).toBeGreaterThan(10);
  }, 90_000);
});
