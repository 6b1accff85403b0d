import { Scheduler } from '../../src/platform/scheduling/scheduler';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { createBooking } from '../support/bookings';
import { createProperty } from '../support/properties';
import { PrivateDatabase, PrivateRedis, PrivateServices, startPrivateServices } from '../support/private-services';
import { waitUntil } from '../support/wait';
import { startWorker, TestWorker } from '../support/worker';

/**
 * The reminders' sweep as it runs in production (the worker's scheduler, a short interval) through the
 * failures it exists for: Redis losing its data, and Redis down when a reminder comes due. The sweep
 * scans the whole database and the test kills Redis, so this file has a database and a redis-server
 * of its own.
 */
describe('reminders: the scheduled sweep when Redis fails', () => {
  let db: PrivateDatabase;
  let redis: PrivateRedis;
  let services: PrivateServices | undefined;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker;
  let account: TestAccount;
  let api: ApiClient;
  let propertyId: string;

  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

  async function dueEvents(): Promise<Array<{ reminderId: string; firedAt: string }>> {
    const rows = await db.query<{ results: Array<{ reminderId: string; firedAt: string }> }>(
      `SELECT results FROM events WHERE account_id = $1 AND event_name = 'reminder.due' ORDER BY id`,
      [account.accountId],
    );
    return rows.map((row) => row.results[0]);
  }

  beforeAll(async () => {
    services = await startPrivateServices('reminders', {
      REMINDER_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_SWEEP_INTERVAL_MS: '0',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    });
    ({ db, redis, env } = services);
    t = await startApp(env);
    worker = await startWorker(env);
    account = await createAccount(t);
    api = clientFor(t, account);
    ({ propertyId } = await createProperty(api));
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await services?.close();
  });

  it('runs the reminder sweep in the worker', () => {
    expect(worker.ctx.get(Scheduler).taskNames()).toContain('reminder-sweep');
  });

  it('Redis restarted empty (every delayed job lost): the turnover reminder still fires, once', async () => {
    const booking = await createBooking(api, propertyId, { startDate: inMs(-86_400_000), endDate: inMs(2500) });
    await redis.stop();
    await redis.start();
    await waitUntil(async () => (await dueEvents()).length > 0, 20_000, 'the reminder to fire');
    const [due] = await dueEvents();
    expect(Date.parse(due.firedAt)).toBeGreaterThanOrEqual(Date.parse(booking.endDate));
    const [reminder] = await db.query<{ id: string; fired_at: Date }>(`SELECT id, fired_at FROM reminders WHERE account_id = $1`, [
      account.accountId,
    ]);
    expect(due.reminderId).toBe(reminder.id);
    // Later sweeps (and whatever job was re-armed) change nothing.
    await waitUntil(
      async () =>
        (
          await db.query(`SELECT last_started_at > $1::timestamptz AS later FROM periodic_tasks WHERE name = 'reminder-sweep'`, [
            due.firedAt,
          ])
        )[0]?.later,
      10_000,
      'another sweep run',
    );
    expect(await dueEvents()).toHaveLength(1);
  });

  it('Redis down when a reminder comes due: the sweep fires it from the database, once', async () => {
    await redis.stop();
    try {
      const written = await db.query<{ id: string }>(
        `INSERT INTO reminders (id, account_id, property_id, title, date) VALUES ('rem_01ARZ3NDEKTSV4RRFFQ69G5FAV', $1, $2, 'Due while Redis is down', now())
         RETURNING id`,
        [account.accountId, propertyId],
      );
      await waitUntil(
        async () => (await dueEvents()).some((e) => e.reminderId === written[0].id),
        20_000,
        'the reminder to fire without Redis',
      );
    } finally {
      await redis.start();
    }
    expect((await dueEvents()).filter((e) => e.reminderId === 'rem_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toHaveLength(1);
    // Redis is back: reminders armed now fire from their jobs as usual (and the teardown then closes
    // workers at rest: BullMQ's close waits out its retry delay when a worker is still reconnecting).
    const after = (
      await api
        .post('/v1/reminders')
        .send({ title: 'After the outage', date: inMs(300), propertyId })
        .expect(201)
    ).body;
    await waitUntil(
      async () => (await dueEvents()).some((e) => e.reminderId === after.reminderId),
      20_000,
      'a reminder armed after the outage to fire',
    );
  });
});
