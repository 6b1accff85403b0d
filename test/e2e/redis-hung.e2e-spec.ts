import { Metrics } from '../../src/platform/metrics/metrics';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { validProperty } from '../support/properties';
import { PrivateRedis, PrivateServices, startPrivateServices } from '../support/private-services';
import { sleep } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';

/** Writes per second of the steady stream (the load). */
const WRITES_PER_SECOND = 30;
const HANG_MS = 20_000;

interface Write {
  startedAt: number;
  ms: number;
  status: number;
  propertyId?: string;
}

/**
 * A Redis that stops answering (SIGSTOP: connections open, nothing answers) for 20 s under a steady stream
 * of writes, then goes on (SIGCONT): the API notices it once (RedisCircuit) instead of paying a time-out
 * per request, nothing is lost, and the worker (a process of its own) delivers everything once Redis
 * answers. The redis-server and database are this file's own.
 */
describe('a hung Redis under load', () => {
  let services: PrivateServices | undefined;
  let redis: PrivateRedis;
  let t: TestApp;
  let api: ApiClient;
  let r: WebhookReceiver;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    services = await startPrivateServices('redis_hung', {
      REDIS_PREFIX: 'pop',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    });
    redis = services.redis;
    t = await startApp(services.env);
    api = clientFor(t, await createAccount(t));
    r = await startReceiver();
    worker = await spawnWorkerProcess(services.env);
  });
  afterAll(async () => {
    redis?.resume();
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await worker?.exited;
    await t?.close();
    await r?.close();
    await services?.close();
  });

  it('answers every write, quickly after the first second, and delivers everything within 15 s of Redis answering again', async () => {
    await subscribe(api, `${r.url}/hung`, ['property.create']);
    const writes: Write[] = [];
    const pending: Array<Promise<void>> = [];
    const write = async () => {
      const startedAt = Date.now();
      const res = await api.post('/v1/properties').send(validProperty());
      writes.push({ startedAt, ms: Date.now() - startedAt, status: res.status, propertyId: res.body?.id });
    };
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        pending.push(write());
        await sleep(1000 / WRITES_PER_SECOND);
      }
    })();

    await sleep(3_000);
    const pausedAt = Date.now();
    redis.pause();
    await sleep(HANG_MS);
    redis.resume();
    const resumedAt = Date.now();
    await sleep(3_000);
    streaming = false;
    await stream;
    await Promise.all(pending);

    expect(writes.filter((w) => w.status !== 201)).toEqual([]);
    const afterFirstSecond = writes
      .filter((w) => w.startedAt >= pausedAt + 1_000 && w.startedAt < resumedAt)
      .map((w) => w.ms)
      .sort((a, b) => a - b);
    expect(afterFirstSecond.length).toBeGreaterThan(((HANG_MS / 1000 - 2) * WRITES_PER_SECOND) / 2);
    const p99 = percentile99(afterFirstSecond);
    // The same writes before the hang, on this machine now: other test files share its two cores, and
    // the bound is what the hang may add, not what a loaded machine costs anyway. Paying the rate limiter's
    // 1 s time-out per write (what the circuit ends) is far past either. Twice the pre-hang p99: both e2e
    // passes share the machine and a p99 of ~150 writes moves by tens of ms between two windows (272 vs 152 once).
    const before = percentile99(writes.filter((w) => w.startedAt < pausedAt).map((w) => w.ms));
    process.stdout.write(
      `hung Redis: ${afterFirstSecond.length} writes after the first second, p99 ${p99} ms, max ${afterFirstSecond.at(-1)} ms (before the hang: p99 ${before} ms)\n`,
    );
    expect(p99).toBeLessThan(Math.max(250, 2 * before + 100));

    // Every write's event delivered, the last within 15 s of Redis answering again: none lost, no worker idle with work.
    const ids = new Set(writes.map((w) => w.propertyId));
    const delivered = await r.waitFor(ids.size, Math.max(1_000, resumedAt + 15_000 - Date.now()));
    const deliveredIds = new Set(
      delivered.map((request) => (JSON.parse(request.rawBody) as { results: Array<{ id: string }> }).results[0].id),
    );
    expect([...ids].filter((id) => !deliveredIds.has(id!))).toEqual([]);

    // The API noticed the hang once: its circuit opened and it counted what it did without Redis.
    const metrics = await t.app.get(Metrics).registry.metrics();
    expect(metrics).toMatch(/pop_redis_given_up_total\{operation="rateLimit"\} [1-9]/);
    expect(metrics).toMatch(/pop_redis_circuit_open 0/);
  }, 90_000);
});

function percentile99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1];
}
