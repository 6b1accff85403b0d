import { Client } from 'pg';
import { createAccount, startApp } from '../support/app';
import { BuiltProcess, LogLine, spawnBuilt } from '../support/built-process';
import { startIdempotentLoad } from '../support/idempotent-load';
import { PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { testPrerequisites } from '../support/prerequisites';
import { PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';
import { freePort } from '../support/private-services';
import { dropRedisPrefix, TEST_RUN_ID } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

const OUTAGE_STARTED = 'database unavailable';
const OUTAGE_ENDED = 'database available again';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The built API and worker (child processes) on one database, and the subscription whose deliveries are checked. */
interface Pair {
  database: string;
  prefix: string;
  api: BuiltProcess & { url: string };
  worker: BuiltProcess;
  subscriptionId: string;
}

/**
 * A real database outage: the built API and worker run on a PostgreSQL cluster of this file's own, and
 * the database goes away under a steady stream of idempotent writes and comes back. Straight to the
 * server, it is stopped in fast mode (sessions terminated with 57P01, then refused connections) and in
 * immediate mode (killed, crash recovery at start). Through a PgBouncer in transaction mode (what a
 * managed PostgreSQL puts in front), the pooler's KILL cuts every connection and holds new ones until
 * RESUME (a pooler that cannot reach its server, or a failover behind it). No process is restarted.
 * Every wait polls a state (answers seen, log lines, rows); nothing sleeps and then asserts.
 */
describe('a database outage under load', () => {
  let pg: PrivatePostgres;
  let receiver: WebhookReceiver;
  let apiKey: string;
  let accountId: string;
  const directDatabase = `property_ops_test_${TEST_RUN_ID}_outage`;
  const pooledDatabase = `property_ops_test_${TEST_RUN_ID}_outage_pooled`;
  const prefixes: string[] = [];
  const loads: Array<{ stop(): void }> = [];

  async function query<T = Record<string, any>>(database: string, sql: string, params: unknown[] = []): Promise<T[]> {
    // A client per query: the cluster restarts between them.
    const client = new Client({ connectionString: pg.url(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Every periodic task runs often on this database of the file's own, so their resuming shows. */
  const workerEnv = (databaseUrl: string, prefix: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: prefix,
    WEBHOOK_RETRY_BASE_MS: '500',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
    WEBHOOK_RETENTION_INTERVAL_MS: '1000',
    REMINDER_SWEEP_INTERVAL_MS: '1000',
    LEGACY_SWEEP_INTERVAL_MS: '1000',
    CALENDAR_SCAN_INTERVAL_MS: '1000',
    ...extra,
  });

  /** Starts the API and the worker side by side (with time to boot on a busy machine) and subscribes the receiver. */
  async function startPair(database: string, databaseUrl: string, extra: Record<string, string> = {}): Promise<Pair> {
    const prefix = `pop-test-${TEST_RUN_ID}-${database}`;
    prefixes.push(prefix);
    const env = workerEnv(databaseUrl, prefix, extra);
    const port = await freePort();
    const [api, worker] = await Promise.all([
      spawnBuilt('main.js', { ...env, PORT: String(port) }, 'api started', 180_000).then((p) => ({
        ...p,
        url: `http://127.0.0.1:${port}`,
      })),
      spawnBuilt('worker.js', env, 'worker started', 180_000),
    ]);
    const subscribed = await fetch(`${api.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/hooks`, eventFilters: ['property.*'] }),
    });
    expect(subscribed.status).toBe(201);
    return { database, prefix, api, worker, subscriptionId: ((await subscribed.json()) as { id: string }).id };
  }

  async function stopPair(pair: Pair | undefined): Promise<void> {
    for (const child of [pair?.api.child, pair?.worker.child])
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all([pair?.api.exited, pair?.worker.exited]);
  }

  const linesSince = (logs: LogLine[], from: number, msg: string) => logs.slice(from).filter((line) => line.msg === msg);

  /**
   * What a delivery left undelivered looks like, for the failure message: its row (claim, due time), its
   * subscription's batch lease, and the worker's warnings and errors since the outage began.
   */
  async function undelivered(pair: Pair, eventIds: string[], workerLogsFrom: number): Promise<string> {
    const rows = await query(
      pair.database,
      `SELECT d.id, d.status, d.attempt_count, d.next_retry_at, d.in_flight_since, d.in_flight_until, s.batch_lease_until, now() AS now
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.subscription_id = $1 AND d.event_id = ANY($2) AND d.status <> 'delivered' ORDER BY d.id`,
      [pair.subscriptionId, eventIds],
    );
    const [{ deliveries, undispatched }] = await query<{ deliveries: string; undispatched: string }>(
      pair.database,
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = ANY($2)) AS deliveries,
              (SELECT count(*) FROM events WHERE id = ANY($2) AND dispatched_at IS NULL) AS undispatched`,
      [pair.subscriptionId, eventIds],
    );
    const warnings = pair.worker
      .logs()
      .slice(workerLogsFrom)
      .filter((line) => (line.level as number) >= 40);
    return [
      `${deliveries} of ${eventIds.length} deliveries exist (${undispatched} event(s) undispatched); not delivered: ${JSON.stringify(rows, null, 1)}`,
      `worker warnings and errors since the outage (${warnings.length}, the last 40):`,
      ...warnings.slice(-40).map((line) => JSON.stringify(line)),
    ].join('\n');
  }

  /**
   * The scenario: writes under load, `cut` the database away once some are acknowledged, `restore` it once
   * the API has answered 503s and both processes logged the outage, then check every answer, every write,
   * every event's delivery, the periodic tasks and the logs.
   */
  async function outageUnderLoad(pair: Pair, cut: () => Promise<unknown>, restore: () => Promise<unknown>): Promise<void> {
    const { api, worker, database } = pair;
    const apiPid = api.child.pid;
    const workerPid = worker.child.pid;
    const apiLogsFrom = api.logs().length;
    const workerLogsFrom = worker.logs().length;
    const load = startIdempotentLoad(api.url, apiKey, 200);
    loads.push(load);
    await waitUntil(async () => load.acknowledged() >= 10, 180_000, 'writes before the outage').catch((error: Error) => {
      throw new Error(`${error.message}: ${load.summary()}`);
    });

    await cut();
    const cutAt = load.answers.length;
    // Down until the API has answered a good number of writes and both processes logged the outage.
    await waitUntil(
      async () =>
        load.answers.slice(cutAt).filter((answer) => answer.status === 503).length >= 10 &&
        linesSince(api.logs(), apiLogsFrom, OUTAGE_STARTED).length > 0 &&
        linesSince(worker.logs(), workerLogsFrom, OUTAGE_STARTED).length > 0,
      180_000,
      '503 answers and the outage logged by the API and the worker',
      200,
    );

    await restore();
    await waitUntil(
      async () =>
        linesSince(api.logs(), apiLogsFrom, OUTAGE_ENDED).length > 0 && linesSince(worker.logs(), workerLogsFrom, OUTAGE_ENDED).length > 0,
      180_000,
      'the API and the worker to log that the database is back',
      200,
    );
    const [{ now: recoveredAt }] = await query<{ now: Date }>(database, 'SELECT now()');
    const acknowledgedAtRecovery = load.acknowledged();
    await waitUntil(async () => load.acknowledged() >= acknowledgedAtRecovery + 10, 180_000, 'writes after the outage', 200);
    await load.finish(180_000);

    // Every answer: an acknowledgement, a 503 problem with Retry-After, or a 409 while a claim is open; never
    // a 500, and never none (a request left hanging, or a connection dropped without an answer).
    expect(load.answers.filter((answer) => ![201, 503, 409].includes(answer.status as number))).toEqual([]);
    const unavailable = load.answers.filter((answer) => answer.status === 503);
    expect(unavailable.length).toBeGreaterThanOrEqual(10);
    for (const answer of unavailable) {
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.retryAfter).toBe('5');
      expect(answer.body).toMatchObject({ status: 503, code: 'serviceUnavailable', title: 'Service unavailable' });
    }
    for (const answer of load.answers.filter((a) => a.status === 409)) {
      expect(answer.body?.code).toBe('idempotencyKeyInProgress');
      expect(answer.retryAfter).toBe('1');
    }

    // Each write acknowledged, with one resource whatever its retries, and kept.
    for (const write of load.writes) {
      const ids = new Set(write.answers.filter((answer) => answer.status === 201).map((answer) => answer.body?.propertyId));
      expect(ids.size).toBe(1);
    }
    const ids = load.writes.map((write) => write.id!);
    const kept = await query<{ id: string }>(database, 'SELECT id FROM properties WHERE account_id = $1 AND id = ANY($2)', [
      accountId,
      ids,
    ]);
    expect(kept.length).toBe(ids.length);
    const [{ count: stored }] = await query<{ count: string }>(
      database,
      `SELECT count(*) FROM idempotency_keys WHERE account_id = $1 AND key = ANY($2) AND completed_at IS NOT NULL`,
      [accountId, load.writes.map((write) => write.key)],
    );
    expect(Number(stored)).toBe(ids.length);
    const events = await query<{ id: string; property_id: string }>(
      database,
      `SELECT id, results -> 0 ->> 'propertyId' AS property_id FROM events WHERE account_id = $1 AND event_name = 'property.create' AND results -> 0 ->> 'propertyId' = ANY($2)`,
      [accountId, ids],
    );
    expect(events.map((event) => event.property_id).sort()).toEqual([...ids].sort());

    // Each event delivered, once: one delivery per event, and a second POST only for an attempt that failed.
    const eventIds = events.map((event) => event.id);
    const deliveries = await waitUntil(
      async () => {
        const rows = await query<{ id: string; status: string; attempt_count: number }>(
          database,
          `SELECT id, status, attempt_count FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = ANY($2)`,
          [pair.subscriptionId, eventIds],
        );
        return rows.length === eventIds.length && rows.every((row) => row.status === 'delivered') ? rows : undefined;
      },
      180_000,
      `${eventIds.length} deliveries to be delivered`,
      200,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await undelivered(pair, eventIds, workerLogsFrom)}`);
    });
    for (const delivery of deliveries) {
      const posts = receiver.requests.filter((request) => request.headers['webhook-id'] === delivery.id).length;
      expect(posts).toBeGreaterThanOrEqual(1);
      expect(posts).toBeLessThanOrEqual(delivery.attempt_count);
    }

    // The worker's periodic tasks ran again, and finished without error, after the database came back.
    await waitUntil(
      async () => {
        const tasks = await query<{ name: string; ok: boolean }>(
          database,
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
  }

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    const directUrl = await pg.createMigratedDatabase(directDatabase);
    // The account, made in process (the CLI's fixed time-out is too short on a loaded machine).
    const setup = await startApp(workerEnv(directUrl, `pop-test-${TEST_RUN_ID}-outage-setup`));
    try {
      ({ accountId, apiKey } = await createAccount(setup));
    } finally {
      await setup.close();
    }
    // The pooled pair's database: a copy, account and key included, with periodic tasks of its own.
    await pg.copyDatabase(directDatabase, pooledDatabase);
    receiver = await startReceiver();
  }, 400_000);

  afterEach(() => loads.forEach((load) => load.stop()));

  afterAll(async () => {
    await receiver?.close();
    await pg?.destroy();
    await Promise.all(prefixes.map((prefix) => dropRedisPrefix(REDIS_URL, prefix)));
  }, 60_000);

  describe('straight to PostgreSQL', () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await startPair(directDatabase, pg.url(directDatabase));
    }, 400_000);
    afterAll(() => stopPair(pair), 60_000);

    it.each(['fast', 'immediate'] as const)(
      'stopped in %s mode: 503 with Retry-After during, no 500, every acknowledged write kept and delivered, no restart',
      (mode) =>
        outageUnderLoad(
          pair,
          () => pg.stop(mode),
          () => pg.start(),
        ),
      900_000,
    );
  });

  describe('through PgBouncer in transaction mode', () => {
    let bouncer: PgBouncer;
    let pair: Pair;
    beforeAll(async () => {
      bouncer = await startPgBouncer(testPrerequisites().pgbouncer, pg.url(pooledDatabase), { poolMode: 'transaction' });
      // A pooler that holds new connections answers them late, not with a refusal: the connect bound decides.
      pair = await startPair(pooledDatabase, bouncer.url, { DATABASE_POOLER: 'transaction', DATABASE_CONNECT_TIMEOUT_MS: '5000' });
    }, 400_000);
    afterAll(async () => {
      await stopPair(pair);
      await bouncer?.stop();
    }, 60_000);

    it(
      'KILL then RESUME on the pooler: 503 with Retry-After during, no 500, every acknowledged write kept and delivered, no restart',
      () =>
        outageUnderLoad(
          pair,
          () => bouncer.admin(`KILL ${pooledDatabase}`),
          () => bouncer.admin(`RESUME ${pooledDatabase}`),
        ),
      900_000,
    );
  });
});
