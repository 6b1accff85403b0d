import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CALENDAR_SCAN_TASK } from '../../src/modules/calendar-feeds/calendar-sync.schedule';
import { LEGACY_RETENTION_TASK, LEGACY_SWEEP_TASK } from '../../src/modules/legacy/legacy-sweep.schedule';
import { REMINDER_SWEEP_TASK } from '../../src/modules/reminders/reminder-sweep.schedule';
import { RETENTION_TASK, SECRETS_TASK, SWEEP_TASK } from '../../src/modules/webhooks/engine/maintenance/webhook-maintenance.schedule';
import { DataSource } from 'typeorm';
import { AccountEntity } from '../../src/modules/auth/account.entity';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { ApiKeyEntity } from '../../src/modules/auth/api-key.entity';
import { ApiProcess, spawnApiProcess } from '../support/api-process';
import { DAY, validBooking } from '../support/bookings';
import { CalendarServer, icsFixture, startCalendarServer } from '../support/calendar-server';
import { TINY_JPEG } from '../support/images';
import { validJob } from '../support/job-requests';
import { freePort, PrivateDatabase, PrivateServices, startPrivateServices } from '../support/private-services';
import { validProperty } from '../support/properties';
import { call, gaps, periodicTaskRuns, recordPeriodicTaskRuns, refused, Reply, within } from '../support/replicas';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';

/**
 * Two built API processes and two built worker processes on one database and one Redis, as N
 * replicas run in production: a mixed write load goes to both APIs (properties, bookings with their
 * turnover reminders, job requests, legacy batches) while calendar feeds sync; midway one API and one
 * worker get SIGTERM. Nothing is lost or done twice: every write acknowledged is there once, every
 * event reaches each subscription once, every reminder fires once, every legacy record runs once,
 * feeds sync once per interval and periodic tasks run once per period, carried on by the worker left.
 * The sweeps scan the whole database, so the file has its own database and redis-server.
 */
const SYNC_INTERVAL_MS = 3_000;
const TASK_INTERVALS_MS: Record<string, number> = {
  [SWEEP_TASK]: 500,
  [REMINDER_SWEEP_TASK]: 500,
  [LEGACY_SWEEP_TASK]: 500,
  [CALENDAR_SCAN_TASK]: 250,
  [RETENTION_TASK]: 2_000,
  [SECRETS_TASK]: 2_000,
  [LEGACY_RETENTION_TASK]: 2_000,
};
const START_TIMEOUT_MS = 90_000;
const ROUNDS = 30;
const LANES = 3;
/** Rounds acknowledged before one API and one worker are stopped. */
const STOP_AFTER = 10;
const PATHS = ['/a', '/b', '/legacy'];

describe('replicas: two APIs and two workers on one database and Redis', () => {
  let db: PrivateDatabase;
  let services: PrivateServices | undefined;
  let apis: ApiProcess[] = [];
  let workers: WorkerProcess[] = [];
  let receiver: WebhookReceiver;
  let calendars: CalendarServer;
  let images: Server;
  let accountId: string;
  let key: string;
  let legacyKey: string;
  let propertyIds: string[];
  let feedPaths: string[];
  /** When the stopped worker had exited, in the database's clock and the test's. */
  let stoppedAt: { db: Date; ms: number };

  const stopping = [false, false];
  const replies: Array<{ path: string; status: number; body: unknown }> = [];
  const propertyKeys: string[] = [];
  const bookingSources: string[] = [];
  const legacyRequests: string[] = [];
  const batchIds: string[] = [];
  let retried = 0;
  /** What the load test has done so far, with seconds since it started: named in its time-out errors. */
  const steps: string[] = [];
  let startedAt = Date.now();
  const step = (what: string) => steps.push(`${what} ${((Date.now() - startedAt) / 1000).toFixed(1)}s`);

  beforeAll(async () => {
    services = await startPrivateServices('replicas', {
      WEBHOOK_SWEEP_INTERVAL_MS: String(TASK_INTERVALS_MS[SWEEP_TASK]),
      REMINDER_SWEEP_INTERVAL_MS: String(TASK_INTERVALS_MS[REMINDER_SWEEP_TASK]),
      LEGACY_SWEEP_INTERVAL_MS: String(TASK_INTERVALS_MS[LEGACY_SWEEP_TASK]),
      CALENDAR_SCAN_INTERVAL_MS: String(TASK_INTERVALS_MS[CALENDAR_SCAN_TASK]),
      WEBHOOK_RETENTION_INTERVAL_MS: String(TASK_INTERVALS_MS[RETENTION_TASK]),
      CALENDAR_SYNC_INTERVAL_MS: String(SYNC_INTERVAL_MS),
      SHUTDOWN_TIMEOUT_MS: '20000',
    });
    db = services.db;
    const { env } = services;
    await recordPeriodicTaskRuns(db);
    // Started together (generous bounds: four Node processes booting at once on a busy machine take a while).
    const started = await Promise.allSettled([
      spawnApiProcess(await freePort(), env, START_TIMEOUT_MS),
      spawnApiProcess(await freePort(), env, START_TIMEOUT_MS),
      spawnWorkerProcess(env, START_TIMEOUT_MS),
      spawnWorkerProcess(env, START_TIMEOUT_MS),
    ]);
    apis = started.slice(0, 2).flatMap((s) => (s.status === 'fulfilled' ? [s.value as ApiProcess] : []));
    workers = started.slice(2).flatMap((s) => (s.status === 'fulfilled' ? [s.value as WorkerProcess] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;

    // The account and its keys as the CLI makes them, from this process: a CLI process booting on a
    // busy machine beside four others is slow.
    const accounts = new DataSource({ type: 'postgres', url: db.url, entities: [AccountEntity, ApiKeyEntity] });
    await accounts.initialize();
    try {
      const service = new AccountsService(accounts);
      const account = await service.createAccount({ name: 'Replicas', plan: 'pro', active: true });
      accountId = account.accountId;
      key = account.apiKey;
      legacyKey = (await service.issueKey(accountId, 'legacy')).apiKey;
    } finally {
      await accounts.destroy();
    }

    receiver = await startReceiver();
    calendars = await startCalendarServer();
    feedPaths = ['/airbnb.ics', '/vrbo.ics'];
    feedPaths.forEach((path, i) => calendars.serve(path, { body: icsFixture(path.slice(1)), etag: `"v${i}"` }));
    const headers = { 'x-api-key': key };
    for (const [i, path] of PATHS.slice(0, 2).entries()) {
      const sub = await call(apis[i].url, 'POST', '/v1/webhooks', headers, { url: `${receiver.url}${path}`, eventFilters: ['*'] });
      expect(sub.status).toBe(201);
    }
    expect((await call(apis[0].url, 'PUT', '/legacy/webhook', { 'x-api-key': legacyKey }, { url: `${receiver.url}/legacy` })).status).toBe(
      200,
    );
    propertyIds = [];
    for (const [i, path] of feedPaths.entries()) {
      const property = await call(apis[i].url, 'POST', '/v1/properties', headers, validProperty());
      propertyIds.push(property.body.propertyId);
      const feed = await call(apis[i].url, 'POST', `/v1/properties/${property.body.propertyId}/calendarFeeds`, headers, {
        url: `${calendars.url}${path}`,
      });
      expect(feed.status).toBe(201);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apis, ...workers].map(stop));
    await receiver?.close();
    await calendars?.close();
    if (images) await new Promise((resolve) => images.close(resolve));
    await services?.close();
  });

  /** Sends to API `target`, or to the other when the target was stopped and refuses the connection. */
  async function send(target: number, method: string, path: string, apiKey: string, body: unknown, idempotencyKey?: string) {
    const headers = { 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) };
    const first = stopping[target] ? 1 - target : target;
    let reply: Reply;
    try {
      reply = await call(apis[first].url, method, path, headers, body);
    } catch (error) {
      if (!stopping[first]) throw error;
      retried++;
      reply = await call(apis[1 - first].url, method, path, headers, body);
    }
    replies.push({ path, status: reply.status, body: reply.body });
    return reply;
  }

  async function round(i: number): Promise<void> {
    const target = i % 2;
    propertyKeys.push(`property-${i}`);
    const property = await send(target, 'POST', '/v1/properties', key, validProperty(), `property-${i}`);
    const propertyId = property.body.propertyId;
    // Check-out (the turnover reminder) a few seconds ahead: it fires during the test.
    const booking = validBooking(propertyId, {
      startDate: new Date(Date.now() - DAY).toISOString(),
      endDate: new Date(Date.now() + 3_000).toISOString(),
    });
    bookingSources.push(booking.sourceBookingId);
    await send(1 - target, 'POST', '/v1/bookings', key, booking, `booking-${i}`);
    await send(target, 'POST', '/v1/jobRequests', key, validJob(propertyId), `job-${i}`);
    if (i % 3 === 0) {
      const records = [0, 1, 2].map((n) => ({
        clientRequestId: `legacy-${i}-${n}`,
        entity: 'property',
        action: 'create',
        data: validProperty(),
      }));
      legacyRequests.push(...records.map((r) => r.clientRequestId));
      const batch = await send(1 - target, 'POST', '/legacy/batch', legacyKey, { records });
      batchIds.push(batch.body.batchId);
    }
  }

  /** Stops API 0 (a picture upload held in flight) and worker 0 with SIGTERM. */
  async function stopOneOfEach(): Promise<void> {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    images = createServer((_req, res) => {
      asked++;
      void held.then(() => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const inFlight = call(
      apis[0].url,
      'POST',
      '/v1/propertyPictures',
      { 'x-api-key': key },
      {
        sourceId: 'held-upload',
        propertyId: propertyIds[0],
        sourceUrl: `http://127.0.0.1:${(images.address() as AddressInfo).port}/p.jpg`,
      },
    );
    await waitUntil(async () => asked === 1, 15_000, 'the picture download to start');
    step('upload held');
    stopping[0] = true;
    workers[0].child.kill('SIGTERM');
    apis[0].child.kill('SIGTERM');
    await waitUntil(() => refused(Number(new URL(apis[0].url).port)), 15_000, 'API 0 to stop accepting connections');
    step('API 0 refuses');
    release();
    const picture = await within(inFlight, 30_000, 'the held upload to be answered', steps);
    expect(picture.status).toBe(201);
    expect(await within(apis[0].exited, 30_000, 'API 0 to exit', steps)).toEqual({ code: 0, signal: null });
    step('API 0 exited');
    const tail = () =>
      workers[0]
        .logs()
        .slice(-12)
        .map((line) => JSON.stringify(line));
    const exited = await within(workers[0].exited, 60_000, 'worker 0 to exit', steps).catch((error: Error) => {
      throw new Error(`${error.message}; its last log lines:\n${tail().join('\n')}\n${workers[0].stderr().slice(-2000)}`);
    });
    expect(exited).toEqual({ code: 0, signal: null });
    step('worker 0 exited');
    const [{ now }] = await db.query<{ now: Date }>(`SELECT now()`);
    stoppedAt = { db: now, ms: Date.now() };
  }

  it('serves a mixed write load on both APIs; SIGTERM to one API and one worker mid-load loses no request', async () => {
    startedAt = Date.now();
    let next = 0;
    let done = 0;
    const lanes = Array.from({ length: LANES }, async () => {
      while (next < ROUNDS) {
        await round(next++);
        done++;
      }
    });
    await waitUntil(async () => done >= STOP_AFTER, 60_000, 'the load to get going');
    step(`${done} rounds`);
    await stopOneOfEach();
    step(`${done} rounds`);
    await within(Promise.all(lanes), 60_000, 'the load to finish', steps);
    expect(replies.filter((r) => r.status >= 300)).toEqual([]);
    expect(done).toBe(ROUNDS);
    // The other API still answers, and every acknowledged create is there exactly once.
    expect((await call(apis[1].url, 'GET', '/v1/health', {})).status).toBe(200);
    const count = async (sql: string, params: unknown[]) => Number((await db.query<{ n: string }>(sql, params))[0].n);
    expect(
      await count(`SELECT count(*) AS n FROM idempotency_keys WHERE account_id = $1 AND key = ANY($2)`, [accountId, propertyKeys]),
    ).toBe(ROUNDS);
    expect(
      await count(`SELECT count(*) AS n FROM bookings WHERE account_id = $1 AND source_booking_id = ANY($2)`, [accountId, bookingSources]),
    ).toBe(ROUNDS);
    expect(await count(`SELECT count(*) AS n FROM job_requests WHERE account_id = $1`, [accountId])).toBe(ROUNDS);
    // Requests the stopped API refused went to the other one (how many depends on timing; often none).
    expect(retried).toBeGreaterThanOrEqual(0);
  }, 240_000);

  it('runs each legacy record once, the worker left taking over batches', async () => {
    await waitUntil(
      async () => (await db.query(`SELECT 1 FROM legacy_batches WHERE id = ANY($1) AND completed_at IS NULL`, [batchIds])).length === 0,
      40_000,
      'every legacy batch to complete',
    );
    const records = await db.query<{ client_request_id: string; status: string }>(
      `SELECT client_request_id, status FROM legacy_batch_records WHERE batch_id = ANY($1)`,
      [batchIds],
    );
    expect(records).toHaveLength(legacyRequests.length);
    expect(records.filter((r) => r.status !== 'succeeded')).toEqual([]);
    const events = await db.query<{ client_request_id: string; n: string }>(
      `SELECT client_request_id, count(*) AS n FROM events
        WHERE account_id = $1 AND event_name = 'property.create' AND client_request_id = ANY($2) GROUP BY client_request_id`,
      [accountId, legacyRequests],
    );
    expect(events.map((e) => [e.client_request_id, Number(e.n)]).sort()).toEqual(legacyRequests.map((id) => [id, 1]).sort());
  }, 60_000);

  it('fires each reminder once', async () => {
    await waitUntil(
      async () =>
        (
          await db.query(`SELECT 1 FROM reminders WHERE account_id = $1 AND source_booking_id = ANY($2) AND fired_at IS NULL`, [
            accountId,
            bookingSources,
          ])
        ).length === 0,
      40_000,
      'every turnover reminder of the load to fire',
    );
    const reminders = await db.query<{ id: string; fired: boolean; due_events: string }>(
      `SELECT r.id, r.fired_at IS NOT NULL AS fired,
              (SELECT count(*) FROM events e
                WHERE e.account_id = r.account_id AND e.event_name = 'reminder.due' AND e.results -> 0 ->> 'reminderId' = r.id) AS due_events
         FROM reminders r WHERE r.account_id = $1`,
      [accountId],
    );
    expect(reminders.length).toBeGreaterThanOrEqual(ROUNDS);
    expect(reminders.filter((r) => Number(r.due_events) !== (r.fired ? 1 : 0))).toEqual([]);
  }, 60_000);

  it('delivers each event to each subscription once: one webhook-id per (event, subscription), POSTed at most once per recorded attempt', async () => {
    type Delivery = { id: string; subscription_id: string; event_id: string; status: string; attempt_count: number; url: string };
    const received = (path: string, id: string) =>
      receiver.requests.filter((r) => r.path === path && r.headers['webhook-id'] === id).length;
    // A consistent moment: every event of the account dispatched, every delivery done and every attempt received.
    const deliveries = await waitUntil(
      async () => {
        const [{ undispatched }] = await db.query<{ undispatched: string }>(
          `SELECT count(*) AS undispatched FROM events WHERE account_id = $1 AND dispatched_at IS NULL`,
          [accountId],
        );
        const rows = await db.query<Delivery>(
          `SELECT d.id, d.subscription_id, d.event_id, d.status, d.attempt_count, s.url
             FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.account_id = $1`,
          [accountId],
        );
        const settled = rows.every((d) => d.status === 'delivered' && received(new URL(d.url).pathname, d.id) >= 1);
        return Number(undispatched) === 0 && settled ? rows : undefined;
      },
      40_000,
      'every event delivered to every subscription',
    );
    const subscriptions = await db.query<{ id: string; url: string; created_at: Date }>(
      `SELECT id, url, created_at FROM webhook_subscriptions WHERE account_id = $1`,
      [accountId],
    );
    expect(subscriptions.map((s) => new URL(s.url).pathname).sort()).toEqual([...PATHS].sort());
    const since = new Date(Math.max(...subscriptions.map((s) => s.created_at.getTime())));
    const events = await db.query<{ id: string }>(`SELECT id FROM events WHERE account_id = $1 AND created_at > $2 AND id <= $3`, [
      accountId,
      since,
      deliveries.reduce((max, d) => (d.event_id > max ? d.event_id : max), ''),
    ]);
    expect(events.length).toBeGreaterThan(ROUNDS * 4);
    for (const subscription of subscriptions) {
      const path = new URL(subscription.url).pathname;
      const mine = deliveries.filter((d) => d.subscription_id === subscription.id);
      // Every event since the subscriptions exist has its one delivery here (the unique index allows no second).
      expect({ path, missing: events.filter((e) => !mine.some((d) => d.event_id === e.id)).map((e) => e.id) }).toEqual({
        path,
        missing: [],
      });
      // At most one POST per recorded attempt (an attempt that timed out may never have reached the
      // receiver): a second POST of a webhook-id only after an attempt that failed.
      const mismatched = mine
        .filter((d) => received(path, d.id) < 1 || received(path, d.id) > d.attempt_count)
        .map((d) => [d.id, d.attempt_count, received(path, d.id)]);
      expect({ path, mismatched }).toEqual({ path, mismatched: [] });
    }
    // Nothing arrived that is not a delivery of the subscription it arrived at.
    const all = await db.query<{ id: string; url: string }>(
      `SELECT d.id, s.url FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.account_id = $1`,
      [accountId],
    );
    const known = new Set(all.map((d) => `${new URL(d.url).pathname} ${d.id}`));
    expect(receiver.requests.filter((r) => !known.has(`${r.path} ${String(r.headers['webhook-id'])}`))).toEqual([]);
  }, 60_000);

  it('syncs each calendar feed once per interval, the worker left carrying on', async () => {
    await waitUntil(
      async () => feedPaths.every((path) => calendars.requests.filter((r) => r.path === path && r.at > stoppedAt.ms).length >= 2),
      4 * SYNC_INTERVAL_MS + 20_000,
      'two syncs of each feed after the worker stopped',
    );
    for (const path of feedPaths) {
      const times = calendars.requests.filter((r) => r.path === path).map((r) => r.at);
      // Two workers syncing one feed would hit it twice within moments; a sync waits 0.9 to 1 interval after the last.
      expect({ path, tooSoon: gaps(times).filter((gap) => gap < SYNC_INTERVAL_MS / 2) }).toEqual({ path, tooSoon: [] });
    }
  }, 60_000);

  it('runs each periodic task once per period across the workers, and on in the worker left', async () => {
    const runs = await waitUntil(
      async () => {
        const all = await periodicTaskRuns(db);
        const resumed = Object.keys(TASK_INTERVALS_MS).every((name) => all.get(name)?.starts.some((start) => start > stoppedAt.db));
        return resumed ? all : undefined;
      },
      20_000,
      'every periodic task to run after the worker stopped',
    );
    for (const [name, intervalMs] of Object.entries(TASK_INTERVALS_MS)) {
      const { starts, gapsMs } = runs.get(name)!;
      expect(starts.length).toBeGreaterThanOrEqual(2);
      // The database's clock: a run is claimed only once the last start is an interval old.
      expect({ name, tooSoon: gapsMs.filter((gap) => gap < intervalMs) }).toEqual({ name, tooSoon: [] });
    }
  }, 60_000);
});

/** SIGTERM, and SIGKILL if it has not exited within 15 s (a test that failed midway). */
async function stop(child: { child: import('node:child_process').ChildProcess; exited: Promise<unknown> }): Promise<void> {
  if (child.child.exitCode !== null || child.child.signalCode !== null) return;
  child.child.kill('SIGTERM');
  const timer = setTimeout(() => child.child.kill('SIGKILL'), 15_000);
  await child.exited;
  clearTimeout(timer);
}
