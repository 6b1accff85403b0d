import { getQueueToken } from '@nestjs/bullmq';
import { NestContainer } from '@nestjs/core';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { newId } from '../../src/platform/ids/ids';
import { ReminderDueProcessor } from '../../src/modules/reminders/reminder-due.processor';
import { dueJobId } from '../../src/modules/reminders/reminder-due.rules';
import { ReminderFiringService } from '../../src/modules/reminders/reminder-firing.service';
import { REMINDER_DUE_QUEUE, ReminderQueue } from '../../src/modules/reminders/reminder-queue.service';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { createBooking } from '../support/bookings';
import { feedEvents } from '../support/events';
import { createProperty } from '../support/properties';
import { dropRedisPrefix } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';
import { REMINDER_IDS } from '../../src/modules/reminders/reminders.ids';

/**
 * Reminders fire (reminder.due) exactly once: from their delayed job, or from the sweep when the job
 * was lost, whichever claims the fired_at flag first. This file has its own Redis prefix; the periodic
 * sweep is off (it scans every account of the shared database) and the tests call it scoped to theirs.
 */
const ENV = {
  REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-reminders-firing`,
  REMINDER_SWEEP_INTERVAL_MS: '0',
  WEBHOOK_SWEEP_INTERVAL_MS: '0',
  WEBHOOK_RETENTION_INTERVAL_MS: '0',
};

describe('reminders firing', () => {
  let t: TestApp;
  let db: DataSource;
  let queue: Queue;
  const workers: TestWorker[] = [];

  async function worker(): Promise<TestWorker> {
    const w = await startWorker(ENV);
    workers.push(w);
    return w;
  }

  async function fresh(): Promise<{ account: TestAccount; api: ApiClient; propertyId: string }> {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const { propertyId } = await createProperty(api);
    return { account, api, propertyId };
  }

  const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

  async function remind(api: ApiClient, propertyId: string, date: string): Promise<{ reminderId: string; date: string }> {
    return (await api.post('/v1/reminders').send({ title: 'Ring the owner', date, propertyId }).expect(201)).body;
  }

  /** reminder.due events of the account, read from the table (the feed shows them too, once visible). */
  async function dueEventsOf(accountId: string): Promise<Array<{ reminderId: string; firedAt: string; apiRequestId: string }>> {
    const rows = await db.query(
      `SELECT results, api_request_id FROM events WHERE account_id = $1 AND event_name = 'reminder.due' ORDER BY id`,
      [accountId],
    );
    return rows.map((row: { results: Array<{ reminderId: string; firedAt: string }>; api_request_id: string }) => ({
      ...row.results[0],
      apiRequestId: row.api_request_id,
    }));
  }

  /** Until the job armed for this reminder and date has left Redis (ran and finished, or removed). */
  const jobGone = (reminderId: string, date: string) =>
    waitUntil(async () => !(await queue.getJob(dueJobId(reminderId, new Date(date)))), 15_000, `job of ${reminderId} to finish`);

  beforeAll(async () => {
    t = await startApp(ENV);
    db = t.app.get(DataSource);
    queue = t.app.get<Queue>(getQueueToken(REMINDER_DUE_QUEUE));
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });
  afterAll(async () => {
    await t?.close();
    await dropRedisPrefix(t.config.redis, ENV.REDIS_PREFIX);
  });

  it('the API only arms jobs: it loads neither the processor nor the firing service', () => {
    const modules = [...(t.app as unknown as { container: NestContainer }).container.getModules().values()];
    const providers = modules.flatMap((m) => [...m.providers.keys()]);
    expect(providers).toContain(ReminderQueue);
    expect(providers).not.toContain(ReminderDueProcessor);
    expect(providers).not.toContain(ReminderFiringService);
  });

  it('the worker loads no controller: its modules import the core modules, never an HTTP module', async () => {
    const { ctx } = await worker();
    const modules = [...(ctx as unknown as { container: NestContainer }).container.getModules().values()];
    expect(modules.flatMap((m) => [...m.controllers.keys()])).toEqual([]);
    expect(modules.flatMap((m) => [...m.providers.keys()])).toContain(ReminderDueProcessor);
  });

  it('fires once at its date from its delayed job: reminder.due carries the reminder with firedAt', async () => {
    const { account, api, propertyId } = await fresh();
    await worker();
    const reminder = await remind(api, propertyId, inMs(700));
    const events = await feedEvents(api, { until: (e) => e.some((x) => x.eventName === 'reminder.due'), timeoutMs: 15_000 });
    const due = events.filter((e) => e.eventName === 'reminder.due');
    expect(due).toHaveLength(1);
    const fired = (await api.get(`/v1/reminders/${reminder.reminderId}`).expect(200)).body;
    expect(fired.firedAt).not.toBeNull();
    expect(Date.parse(fired.firedAt)).toBeGreaterThanOrEqual(Date.parse(reminder.date)); // never early
    expect(due[0].results).toEqual([fired]);
    expect(due[0].apiRequestId).toBe(`due_${reminder.reminderId}`);
    expect(due[0].clientRequestId).toBe(`due_${reminder.reminderId}`);
    // Nothing fires it again: the sweep, a direct attempt, the job run once more.
    await jobGone(reminder.reminderId, reminder.date);
    const w = workers[0];
    expect(await w.ctx.get(ReminderFiringService).sweep({ accountIds: [account.accountId] })).toEqual({ fired: 0, armed: 0 });
    expect(await w.ctx.get(ReminderFiringService).fire(account.accountId, reminder.reminderId)).toEqual({ kind: 'done' });
    expect(await dueEventsOf(account.accountId)).toHaveLength(1);
  });

  it('a reminder whose job was lost is fired by the sweep, late rather than never, and once', async () => {
    const { account, api, propertyId } = await fresh();
    // Due 10 s ago (past the sweep's grace), and its job lost before any worker ran it (as when Redis loses its data).
    const reminder = await remind(api, propertyId, inMs(-10_000));
    const jobId = dueJobId(reminder.reminderId, new Date(reminder.date));
    await waitUntil(() => queue.getJob(jobId), 5000, 'the job to be armed');
    await queue.remove(jobId);
    const firing = (await worker()).ctx.get(ReminderFiringService);
    const scope = { accountIds: [account.accountId] };
    expect(await firing.sweep(scope)).toEqual({ fired: 1, armed: 0 });
    expect(await firing.sweep(scope)).toEqual({ fired: 0, armed: 0 });
    expect(await queue.getJob(jobId)).toBeFalsy();
    const [due] = await dueEventsOf(account.accountId);
    expect(due).toMatchObject({ reminderId: reminder.reminderId, apiRequestId: `due_${reminder.reminderId}` });
    expect(await dueEventsOf(account.accountId)).toHaveLength(1);
  });

  it('a reminder due soon whose job was lost is re-armed by the sweep and fires on time, once', async () => {
    const { account, api, propertyId } = await fresh();
    const reminder = await remind(api, propertyId, inMs(3000));
    const jobId = dueJobId(reminder.reminderId, new Date(reminder.date));
    await waitUntil(() => queue.getJob(jobId), 5000, 'the job to be armed');
    await queue.remove(jobId);
    const firing = (await worker()).ctx.get(ReminderFiringService);
    // Re-armed (or, should this machine be so slow that it is already past the grace period, fired).
    const swept = await firing.sweep({ accountIds: [account.accountId] });
    expect(swept.armed + swept.fired).toBe(1);
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length > 0, 15_000, 'the re-armed reminder to fire');
    await jobGone(reminder.reminderId, reminder.date);
    const [due] = await dueEventsOf(account.accountId);
    expect(Date.parse(due.firedAt)).toBeGreaterThanOrEqual(Date.parse(reminder.date));
    expect(await dueEventsOf(account.accountId)).toHaveLength(1);
  });

  it('a reminder due beyond the arm horizon gets its job from the sweep as it comes close, and fires on time', async () => {
    const { account, api, propertyId } = await fresh();
    const firing = (await worker()).ctx.get(ReminderFiringService);
    const scope = { accountIds: [account.accountId] };
    const reminder = await remind(api, propertyId, inMs(12_000)); // the horizon is 10 s (REMINDER_SWEEP_INTERVAL_MS=0)
    const jobId = dueJobId(reminder.reminderId, new Date(reminder.date));
    expect(await firing.sweep(scope)).toEqual({ fired: 0, armed: 0 });
    expect(await queue.getJob(jobId)).toBeFalsy();
    await waitUntil(async () => (await firing.sweep(scope)).armed === 1, 15_000, 'the sweep to arm the reminder', 200);
    expect(await queue.getJob(jobId)).toBeTruthy();
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length > 0, 20_000, 'the reminder to fire');
    const [due] = await dueEventsOf(account.accountId);
    expect(Date.parse(due.firedAt)).toBeGreaterThanOrEqual(Date.parse(reminder.date));
    await jobGone(reminder.reminderId, reminder.date);
    expect(await dueEventsOf(account.accountId)).toHaveLength(1);
  });

  it('more reminders due at one instant than a sweep batch (500) all get their job, and each fires once', async () => {
    const { account, propertyId } = await fresh();
    const firing = (await worker()).ctx.get(ReminderFiringService);
    // 501 turnovers at the same check-out, due within the arm horizon, written without a job (as the
    // automation writes turnovers days ahead: only the sweep arms them as they come close).
    const ids = Array.from({ length: 501 }, () => newId(REMINDER_IDS.reminder));
    await db.query(
      `INSERT INTO reminders (id, account_id, property_id, title, date)
       SELECT id, $2, $3, 'Turnover', date_trunc('milliseconds', now() + interval '4 seconds') FROM unnest($1::text[]) AS id`,
      [ids, account.accountId, propertyId],
    );
    const [{ date }] = await db.query(`SELECT date FROM reminders WHERE id = $1`, [ids[0]]);
    await firing.sweep({ accountIds: [account.accountId] });
    // Every one has its job, or, on a machine slow enough to reach the date meanwhile, has fired: a job
    // that ran while this loop looked is removed, so what the loop missed is checked against the fired ones after it.
    const withoutJob = [];
    for (const id of ids) if (!(await queue.getJob(dueJobId(id, date)))) withoutJob.push(id);
    const fired = new Set((await dueEventsOf(account.accountId)).map((e) => e.reminderId));
    expect(withoutJob.filter((id) => !fired.has(id))).toEqual([]);
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length >= ids.length, 20_000, 'every reminder to fire');
    expect((await dueEventsOf(account.accountId)).map((e) => e.reminderId).sort()).toEqual([...ids].sort());
  });

  it('a job whose worker was down at the time fires once, late, when a worker starts', async () => {
    const { account, api, propertyId } = await fresh();
    const reminder = await remind(api, propertyId, inMs(50));
    await waitUntil(
      async () => (await db.query(`SELECT now() > $1::timestamptz AS past`, [reminder.date]))[0].past,
      5000,
      'the date to pass',
    );
    expect(await dueEventsOf(account.accountId)).toEqual([]);
    await worker();
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length > 0, 15_000, 'the late reminder to fire');
    await jobGone(reminder.reminderId, reminder.date);
    expect(await dueEventsOf(account.accountId)).toHaveLength(1);
  });

  it('two workers racing (their jobs, their sweeps, direct attempts) fire each reminder exactly once', async () => {
    const { account, api, propertyId } = await fresh();
    const [w1, w2] = [await worker(), await worker()];
    const reminders = await Promise.all(Array.from({ length: 12 }, (_, i) => remind(api, propertyId, inMs(i % 2 ? -5000 : 300))));
    const scope = { accountIds: [account.accountId] };
    const ids = reminders.map((r) => r.reminderId);
    const attempts = [w1, w2].flatMap((w) => {
      const firing = w.ctx.get(ReminderFiringService);
      return [firing.sweep(scope), ...ids.map((id) => firing.fire(account.accountId, id))];
    });
    await Promise.all(attempts);
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length >= ids.length, 15_000, 'every reminder to fire');
    await Promise.all(reminders.map((r) => jobGone(r.reminderId, r.date)));
    await Promise.all([w1, w2].map((w) => w.ctx.get(ReminderFiringService).sweep(scope)));
    const fired = (await dueEventsOf(account.accountId)).map((e) => e.reminderId).sort();
    expect(fired).toEqual([...ids].sort());
  });

  it('a turnover reminder moved earlier fires at its new date only; moved after firing, it fires again at its new date', async () => {
    const { account, api, propertyId } = await fresh();
    await worker();
    const booking = await createBooking(api, propertyId, { startDate: inMs(-86_400_000), endDate: inMs(6000) });
    const [original] = (
      await api.get(`/v1/reminders?dateFrom=${encodeURIComponent(inMs(-60_000))}&dateTo=${encodeURIComponent(inMs(60_000))}`)
    ).body.data;
    const earlier = inMs(500);
    await api.patch(`/v1/bookings/${booking.bookingId}/dates`).send({ startDate: booking.startDate, endDate: earlier }).expect(200);
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length > 0, 15_000, 'the moved reminder to fire');
    // The job armed for the old date runs too, and finds it fired.
    await jobGone(original.reminderId, original.date);
    const [due] = await dueEventsOf(account.accountId);
    expect(due.reminderId).toBe(original.reminderId);
    expect(Date.parse(due.firedAt)).toBeLessThan(Date.parse(original.date));
    // Moved again after it fired: due again at its new check-out.
    const later = inMs(300);
    await api.patch(`/v1/bookings/${booking.bookingId}/dates`).send({ startDate: booking.startDate, endDate: later }).expect(200);
    await waitUntil(async () => (await dueEventsOf(account.accountId)).length > 1, 15_000, 'the reminder to fire at its new date');
    await jobGone(original.reminderId, later);
    expect((await dueEventsOf(account.accountId)).map((e) => e.reminderId)).toEqual([original.reminderId, original.reminderId]);
  });

  it('a cancelled booking’s or a deleted reminder never fires', async () => {
    const { account, api, propertyId } = await fresh();
    // Cancelled and deleted before any worker runs (a loaded machine may take longer than their 400 ms),
    // then a worker meets their armed jobs past their dates.
    const booking = await createBooking(api, propertyId, { startDate: inMs(-86_400_000), endDate: inMs(400) });
    const [automatic] = (
      await api.get(`/v1/reminders?dateFrom=${encodeURIComponent(inMs(-60_000))}&dateTo=${encodeURIComponent(inMs(60_000))}`)
    ).body.data;
    await api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
    const deleted = await remind(api, propertyId, inMs(400));
    await api.delete(`/v1/reminders/${deleted.reminderId}`).expect(204);
    await worker();
    await jobGone(automatic.reminderId, automatic.date);
    await jobGone(deleted.reminderId, deleted.date);
    expect(await dueEventsOf(account.accountId)).toEqual([]);
  });

  it('webhook filters carry the booking and reminder events: booking.* and reminder.due, nothing else', async () => {
    const { api, propertyId } = await fresh();
    await worker();
    const receiver: WebhookReceiver = await startReceiver();
    try {
      await subscribe(api, `${receiver.url}/bookings`, ['booking.*', 'reminder.due']);
      const booking = await createBooking(api, propertyId, { startDate: inMs(-86_400_000), endDate: inMs(300) });
      const received = await receiver.waitFor(2, 15_000);
      const names = received.map((r) => JSON.parse(r.rawBody).eventName).sort();
      expect(names).toEqual(['booking.create', 'reminder.due']);
      const due = received.map((r) => JSON.parse(r.rawBody)).find((b) => b.eventName === 'reminder.due');
      expect(due.results[0]).toMatchObject({ automatic: true, sourceBookingId: booking.sourceBookingId, firedAt: expect.any(String) });
      await api.post(`/v1/bookings/${booking.bookingId}/cancel`).expect(200);
      await receiver.waitFor(3, 15_000);
      expect(receiver.requests.map((r) => JSON.parse(r.rawBody).eventName).filter((n: string) => n.startsWith('reminder.'))).toEqual([
        'reminder.due',
      ]);
    } finally {
      await receiver.close();
    }
  });
});
