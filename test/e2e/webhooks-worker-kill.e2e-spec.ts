import { appendFileSync } from 'node:fs';
import { queuePrefix } from '../../src/platform/queue/queue-prefix';
import { Queue } from 'bullmq';
import { WEBHOOK_DELIVERY_QUEUE } from '../../src/modules/webhooks/webhook-queue.service';
import { workerName } from '../../src/platform/queue/queue-worker';
import { redisConnectionOptions } from '../../src/platform/redis/redis-factory';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { validProperty } from '../support/properties';
import { PrivateDatabase, PrivateRedis, PrivateServices, startPrivateServices } from '../support/private-services';
import { sleep, waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';

/**
 * Issue 20's fault scenario: property writes at a steady rate, one subscription whose receiver answers
 * 2xx after 250 ms, and a worker process SIGKILLed twice with attempts in flight, restarted 3 s after
 * each kill. Every attempt it held (claimed mid-POST, or taken from the queue and not yet claimed) is
 * sent again within 15 s of the kill, and every delivery ends delivered, none pending, no attempt twice.
 * The workers run with production's defaults (WEBHOOK_TIMEOUT_MS 10 s: a BullMQ lock of 40 s; the sweep
 * every 2 s). Another worker process runs throughout, as in production with more than one, so the time
 * measured is the engine's, not a restarted process's boot; KILL_SCENARIO_WORKERS=1 runs the killed
 * worker alone, as the issue did, and measures from the moment the restarted worker has started.
 *
 * Sized for CI. The issue's size, repeated (docs/webhooks.md, "A worker killed mid-stream"):
 *   for i in $(seq 8); do KILL_SCENARIO=1 KILL_SCENARIO_WORKERS=1 KILL_SCENARIO_RATE=30 KILL_SCENARIO_SECONDS=30 \
 *     KILL_SCENARIO_REPORT=/tmp/kills.jsonl npx jest --config jest.e2e.config.js test/e2e/webhooks-worker-kill.e2e-spec.ts; done
 */
const RATE_PER_SECOND = Number(process.env.KILL_SCENARIO_RATE ?? 20);
const DURATION_MS = Number(process.env.KILL_SCENARIO_SECONDS ?? 15) * 1000;
const WORKERS = Number(process.env.KILL_SCENARIO_WORKERS ?? 2);
const RESTART_AFTER_MS = 3_000;
const RESEND_BOUND_MS = 15_000;

interface Kill {
  at: number;
  /** When a worker ran again: at once with a surviving worker, else once the restarted one had started. */
  workerBackAt: number;
  /** Deliveries whose attempt the killed worker held: its active jobs (claimed or not). */
  held: Set<string>;
}

/**
 * Opt-in (KILL_SCENARIO=1), shown as skipped otherwise: it boots four worker processes and asserts a time
 * bound, which a machine loaded past its cores cannot keep (worker boots took over 60 s at load 30).
 */
const describeScenario = process.env.KILL_SCENARIO === '1' ? describe : describe.skip;

describeScenario('webhook delivery when worker processes are killed mid-stream', () => {
  let db: PrivateDatabase;
  let redis: PrivateRedis;
  let services: PrivateServices | undefined;
  let env: Record<string, string>;
  let t: TestApp;
  let api: ApiClient;
  let r: WebhookReceiver;
  let queue: Queue;
  const processes: WorkerProcess[] = [];
  let over = false;

  async function workerProcess(overrides: Record<string, string> = {}): Promise<WorkerProcess> {
    if (over) throw new Error('the test is over');
    const p = await spawnWorkerProcess({ ...env, ...overrides }, 60_000);
    processes.push(p);
    return p;
  }

  beforeAll(async () => {
    // Production's attempt deadline (the test environment's is 2 s): the delivery jobs' BullMQ lock is 40 s.
    services = await startPrivateServices('worker_kill', {
      REDIS_PREFIX: 'pop',
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    });
    ({ db, redis, env } = services);
    t = await startApp(env);
    api = clientFor(t, await createAccount(t));
    r = await startReceiver();
    r.respondWith(() => ({ status: 204, delayMs: 250 }));
    queue = new Queue(WEBHOOK_DELIVERY_QUEUE, {
      connection: redisConnectionOptions(redis.url),
      prefix: queuePrefix('pop', WEBHOOK_DELIVERY_QUEUE),
    });
  });
  afterAll(async () => {
    over = true;
    for (const p of processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await queue?.close();
    await t?.close();
    await r?.close();
    await services?.close();
  });

  /**
   * Waits for the doomed worker to hold attempts, notes them, and kills it with SIGKILL. What it holds:
   * the attempts of its active single-attempt jobs, and, while it runs a subscription's batch (issue 23),
   * the attempts claimed at that moment (the other worker's claims among them are sent before the kill,
   * so they show no re-send and are not counted below).
   */
  async function killMidStream(doomed: WorkerProcess): Promise<Omit<Kill, 'workerBackAt'>> {
    const name = workerName(doomed.child.pid);
    const held = await waitUntil(
      async () => {
        const jobs = (await queue.getActive()).filter((job) => job.processedBy === name);
        if (jobs.length === 0) return undefined;
        const claimed = await db.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE in_flight_until IS NOT NULL`);
        const ids = [...jobs.flatMap((job) => (job.data.deliveryId ? [String(job.data.deliveryId)] : [])), ...claimed.map((row) => row.id)];
        return ids.length >= 2 ? ids : undefined;
      },
      20_000,
      'attempts in flight in the doomed worker',
      10,
    );
    doomed.child.kill('SIGKILL');
    const at = Date.now();
    await doomed.exited;
    return { at, held: new Set(held) };
  }

  it(
    'sends again within 15 s of each kill the attempts the killed worker held, and delivers every delivery once',
    async () => {
      await subscribe(api, `${r.url}/killed-twice`);
      const survivor = WORKERS > 1 ? await workerProcess() : undefined;
      let doomed = await workerProcess();
      const start = Date.now();
      const kills: Kill[] = [];
      let killing = true;
      const killer = (async () => {
        let next = start + DURATION_MS / 3;
        for (let n = 0; n < 2; n++) {
          await sleep(next - Date.now());
          const kill = await killMidStream(doomed);
          await sleep(RESTART_AFTER_MS);
          doomed = await workerProcess();
          kills.push({ ...kill, workerBackAt: survivor ? kill.at : Date.now() });
          next = Math.max(start + (2 * DURATION_MS) / 3, Date.now() + 2_000);
        }
      })().finally(() => (killing = false));
      const writes: Array<Promise<number>> = [];
      for (let n = 0; Date.now() - start < DURATION_MS || killing; n++) {
        writes.push(
          api
            .post('/v1/properties')
            .send(validProperty())
            .then((res) => res.status),
        );
        await sleep(start + ((n + 1) * 1000) / RATE_PER_SECOND - Date.now());
      }
      await killer;
      expect((await Promise.all(writes)).every((status) => status === 201)).toBe(true);

      // Every write's event ends delivered: none left pending.
      const counts = await waitUntil(
        async () => {
          const [row] = await db.query<{ events: number; deliveries: number; delivered: number }>(
            `SELECT (SELECT count(*)::int FROM events WHERE event_name = 'property.create') AS events, count(*)::int AS deliveries,
                    count(*) FILTER (WHERE status = 'delivered')::int AS delivered
               FROM webhook_deliveries`,
          );
          const [pending] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`);
          return row.deliveries === writes.length && pending.n === 0 ? row : undefined;
        },
        60_000,
        'every delivery final',
        250,
      );
      expect(counts).toEqual({ events: writes.length, deliveries: writes.length, delivered: writes.length });

      // Each attempt went out once: no (delivery, retry count) pair twice.
      const attempts = r.requests.map((q) => `${q.headers['webhook-id']}/${q.headers['webhook-retry-count']}`);
      expect(new Set(attempts).size).toBe(attempts.length);

      // What each kill cost: for each attempt the killed worker held and had not finished, its first request after the kill.
      const resendMs = kills.map((kill) =>
        [...kill.held].flatMap((deliveryId) => {
          const after = r.requests.find((q) => q.headers['webhook-id'] === deliveryId && q.receivedAt.getTime() >= kill.at);
          return after ? [after.receivedAt.getTime() - kill.workerBackAt] : [];
        }),
      );
      if (process.env.KILL_SCENARIO_REPORT) {
        const report = {
          workers: WORKERS,
          deliveries: writes.length,
          resent: resendMs.map((delays) => delays.length),
          maxResendMs: resendMs.map((delays) => Math.max(0, ...delays)),
          restartMs: kills.map((kill) => kill.workerBackAt - kill.at),
        };
        appendFileSync(process.env.KILL_SCENARIO_REPORT, `${JSON.stringify(report)}\n`);
      }
      for (const delays of resendMs) {
        expect(delays.length).toBeGreaterThan(0);
        expect(Math.max(...delays)).toBeLessThan(RESEND_BOUND_MS);
      }
    },
    DURATION_MS + 180_000,
  );
});
