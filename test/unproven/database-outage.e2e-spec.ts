import { Client } from 'pg';
import { createAccount, startApp } from '../support/app';
import { BuiltProcess, LogLine, spawnBuilt } from '../support/built-process';
import { IdempotentLoad, startIdempotentLoad } from '../support/idempotent-load';
import { PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';
import { freePort } from '../support/private-services';
import { dropRedisPrefix, TEST_RUN_ID } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

const OUTAGE_STARTED = 'database unavailable';
const OUTAGE_ENDED = 'database available again';

/**
 * A real database outage: the built API and worker (child processes) run on a PostgreSQL cluster of this
 * file's own, which is stopped under a steady stream of idempotent writes and started again, once in
 * fast mode (sessions terminated with 57P01, then refused connections) and once in immediate mode (killed,
 * crash recovery at start). Neither process is restarted. Every wait polls a state (answers seen, log
 * lines, rows); nothing sleeps and then asserts.
 */
describe('a database outage under load', () => {
  const prefix = `pop-test-${TEST_RUN_ID}-outage`;
  let pg: PrivatePostgres;
  let databaseUrl: string;
  let api: BuiltProcess & { url: string };
  let worker: BuiltProcess;
  let receiver: WebhookReceiver;
  let apiKey: string;
  let accountId: string;
  let subscriptionId: string;
  let apiPid: number | undefined;
  let workerPid: number | undefined;
  const loads: IdempotentLoad[] = [];

  async function query<T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    // A client per query: the cluster restarts between them.
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  const linesSince = (logs: LogLine[], from: number, msg: string) => logs.slice(from).filter((line) => line.msg === msg);

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    databaseUrl = await pg.createMigratedDatabase(`property_ops_test_${TEST_RUN_ID}_outage`);
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: prefix,
      WEBHOOK_RETRY_BASE_MS: '500',
      // Every periodic task runs often on this database of the file's own, so their resuming shows.
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_RETENTION_INTERVAL_MS: '1000',
      REMINDER_SWEEP_INTERVAL_MS: '1000',
      LEGACY_SWEEP_INTERVAL_MS: '1000',
      CALENDAR_SCAN_INTERVAL_MS: '1000',
    };
    // The account, made in process (the CLI's fixed time-out is too short on a loaded machine).
    const setup = await startApp(env);
    try {
      ({ accountId, apiKey } = await createAccount(setup));
    } finally {
      await setup.close();
    }
    // Started side by side, with time to boot on a busy machine.
    const port = await freePort();
    [api, worker] = await Promise.all([
      spawnBuilt('main.js', { ...env, PORT: String(port) }, 'api started', 180_000).then((p) => ({
        ...p,
        url: `http://127.0.0.1:${port}`,
      })),
      spawnBuilt('worker.js', env, 'worker started', 180_000),
    ]);
    apiPid = api.child.pid;
    workerPid = worker.child.pid;
    receiver = await startReceiver();
    const subscribed = await fetch(`${api.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/hooks`, eventFilters: ['property.*'] }),
    });
    expect(subscribed.status).toBe(201);
    subscriptionId = ((await subscribed.json()) as { id: string }).id;
  }, 400_000);

  afterEach(() => loads.forEach((load) => load.stop()));

  afterAll(async () => {
    for (const child of [api?.child, worker?.child])
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all([api?.exited, worker?.exited]);
    await receiver?.close();
    await pg?.destroy();
    await dropRedisPrefix(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  }, 60_000);

  it.each(['fast', 'immediate'] as const)(
    'stopped in %s mode: 503 with Retry-After during, no 500, every acknowledged write kept and delivered, no restart',
    async (mode) => {
      const apiLogsFrom = api.logs().length;
      const workerLogsFrom = worker.logs().length;
      const load = startIdempotentLoad(api.url, apiKey, 200);
      loads.push(load);
      await waitUntil(async () => load.acknowledged() >= 10, 180_000, 'writes before the outage').catch((error: Error) => {
        throw new Error(`${error.message}: ${load.summary()}`);
      });

      await pg.stop(mode);
      const stoppedAt = load.answers.length;
      // Down until the API has answered a good number of writes and both processes logged the outage.
      await waitUntil(
        async () =>
          load.answers.slice(stoppedAt).filter((answer) => answer.status === 503).length >= 10 &&
          linesSince(api.logs(), apiLogsFrom, OUTAGE_STARTED).length > 0 &&
          linesSince(worker.logs(), workerLogsFrom, OUTAGE_STARTED).length > 0,
        180_000,
        '503 answers and the outage logged by the API and the worker',
      );

      await pg.start();
      await waitUntil(
        async () =>
          linesSince(api.logs(), apiLogsFrom, OUTAGE_ENDED).length > 0 &&
          linesSince(worker.logs(), workerLogsFrom, OUTAGE_ENDED).length > 0,
        180_000,
        'the API and the worker to log that the database is back',
      );
      const [{ now: recoveredAt }] = await query<{ now: Date }>('SELECT now()');
      const acknowledgedAtRecovery = load.acknowledged();
      await waitUntil(async () => load.acknowledged() >= acknowledgedAtRecovery + 10, 180_000, 'writes after the outage');
      await load.finish(180_000);

      // Every answer: an acknowledgement, a 503 problem with Retry-After, or a 409 while a claim is open; never a 500.
      const statuses = new Set(load.answers.map((answer) => answer.status));
      expect([...statuses].filter((status) => ![201, 503, 409].includes(status as number))).toEqual([]);
      const unavailable = load.answers.filter((answer) => answer.status === 503);
      expect(unavailable.length).toBeGreaterThanOrEqual(10);
      for (const answer of unavailable) {
        expect(answer.contentType).toMatch(/^application\/problem\+json/);
        expect(answer.retryAfter).toBe('5');
        expect(answer.body).toMatchObject({ status: 503, code: 'serviceUnavailable', title: 'Service unavailable' });
      }
      for (const answer of load.answers.filter((a) => a.status === 409)) expect(answer.body?.code).toBe('idempotencyKeyInProgress');

      // Each write acknowledged, with one resource whatever its retries, and kept.
      for (const write of load.writes) {
        const ids = new Set(write.answers.filter((answer) => answer.status === 201).map((answer) => answer.body?.propertyId));
        expect(ids.size).toBe(1);
      }
      const ids = load.writes.map((write) => write.id!);
      const kept = await query<{ id: string }>('SELECT id FROM properties WHERE account_id = $1 AND id = ANY($2)', [accountId, ids]);
      expect(kept.length).toBe(ids.length);
      const [{ count: stored }] = await query<{ count: string }>(
        `SELECT count(*) FROM idempotency_keys WHERE account_id = $1 AND key = ANY($2) AND completed_at IS NOT NULL`,
        [accountId, load.writes.map((write) => write.key)],
      );
      expect(Number(stored)).toBe(ids.length);
      const events = await query<{ id: string; property_id: string }>(
        `SELECT id, results -> 0 ->> 'propertyId' AS property_id FROM events WHERE account_id = $1 AND event_name = 'property.create' AND results -> 0 ->> 'propertyId' = ANY($2)`,
        [accountId, ids],
      );
      expect(events.map((event) => event.property_id).sort()).toEqual([...ids].sort());

      // Each event delivered, once: one delivery per event, and a second POST only for an attempt that failed.
      const eventIds = events.map((event) => event.id);
      const deliveries = await waitUntil(
        async () => {
          const rows = await query<{ id: string; status: string; attempt_count: number }>(
            `SELECT id, status, attempt_count FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = ANY($2)`,
            [subscriptionId, eventIds],
          );
          return rows.length === eventIds.length && rows.every((row) => row.status === 'delivered') ? rows : undefined;
        },
        180_000,
        `${eventIds.length} deliveries to be delivered`,
        200,
      );
      for (const delivery of deliveries) {
        const posts = receiver.requests.filter((request) => request.headers['webhook-id'] === delivery.id).length;
        expect(posts).toBeGreaterThanOrEqual(1);
        expect(posts).toBeLessThanOrEqual(delivery.attempt_count);
      }

      // The worker's periodic tasks ran again, and finished without error, after the database came back.
      await waitUntil(
        async () => {
          const tasks = await query<{ name: string; ok: boolean }>(
            `SELECT name, last_finished_at > $1 AND last_error IS NULL AS ok FROM periodic_tasks`,
            [recoveredAt],
          );
          return tasks.length >= 4 && tasks.every((task) => task.ok);
        },
        180_000,
        'every periodic task to run again',
        200,
      );

      // No restart: the same processes, and one line for the outage's start and one for its end in each.
      expect(api.child.pid).toBe(apiPid);
      expect(worker.child.pid).toBe(workerPid);
      expect(api.child.exitCode).toBeNull();
      expect(worker.child.exitCode).toBeNull();
      for (const logs of [api.logs().slice(apiLogsFrom), worker.logs().slice(workerLogsFrom)]) {
        expect(logs.filter((line) => line.msg === OUTAGE_STARTED)).toHaveLength(1);
        expect(logs.filter((line) => line.msg === OUTAGE_ENDED)).toHaveLength(1);
        expect(logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
      }
    },
    900_000,
  );
});
