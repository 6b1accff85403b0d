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
  ms: number;
  status: number;
  propertyId?: string;
}

/**
 * Redis behind Sentinel (REDIS_SENTINELS): a primary, a replica and three sentinels of this file's own
 * (a fresh set per case). Under a steady stream of writes the primary is killed and stays dead, or first
 * stops answering (SIGSTOP: its connections stay open) and is killed once the sentinels have promoted the
 * replica: the API and the worker (a process of its own) follow the promoted replica with nothing lost.
 */
describe.each([['killed'], ['hung, then killed']])('Redis behind Sentinel: the primary %s under writes', (fault) => {
  let db: PrivateDatabase;
  let sentinel: PrivateRedisSentinel | undefined;
  let t: TestApp;
  let api: ApiClient;
  let r: WebhookReceiver;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    db = await createPrivateDatabase(fault === 'killed' ? 'redis_sentinel_kill' : 'redis_sentinel_hang');
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
    await sleep(1_000); // the worker's connections settled on the primary
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
            .then((res) => void writes.push({ startedAt, ms: Date.now() - startedAt, status: res.status, propertyId: res.body?.id })),
        );
        await sleep(1000 / WRITES_PER_SECOND);
      }
    })();

    await sleep(2_000);
    const oldPrimary = await sentinel!.primaryPort();
    const killedAt = Date.now();
    const old = sentinel!.processOf(oldPrimary);
    old.kill(fault === 'killed' ? 'SIGKILL' : 'SIGSTOP');

    let seen = {};
    const newPrimary = await waitUntil(
      async () => {
        const port = await sentinel!.primaryPort().catch(() => oldPrimary);
        const health = port === oldPrimary ? undefined : await t.http.get('/v1/health');
        seen = { promoted: port !== oldPrimary, health: health?.status };
        return health?.status === 200 && health.body.checks.redis === 'up' ? port : undefined;
      },
      // Issue 40 asks 15 s: 2.3-3.3 s measured quiet, but once over 15 s while both e2e passes loaded the
      // machine (the sentinels had promoted; the API's health still answered 503). Until that is understood
      // (issue 40 stays open), a stuck connection still fails here; a slow one under load does not.
      30_000,
      'the health check to see Redis on the promoted replica',
    ).catch((error: Error) => {
      throw new Error(`${error.message} (last seen: ${JSON.stringify(seen)})`);
    });
    const healthyAt = Date.now();
    if (fault !== 'killed') old.kill('SIGKILL'); // hung, then gone for good
    await sleep(3_000);
    streaming = false;
    await stream;
    await Promise.all(pending);
    const slow = writes
      .filter((w) => w.startedAt >= killedAt + 1_000)
      .map((w) => w.ms)
      .sort((a, b) => a - b);
    process.stdout.write(
      `sentinel failover (${fault}): health up ${healthyAt - killedAt} ms after the fault, ${writes.length} writes, p99 after the first second ${slow[Math.ceil(slow.length * 0.99) - 1]} ms, 503s ${writes.filter((w) => w.status === 503).length}\n`,
    );

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
