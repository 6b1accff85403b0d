import { ApiClient, startApp, TestApp } from '../support/app';
import { validBooking } from '../support/bookings';
import { createChecklist, validJob } from '../support/job-requests';
import { createLegacyAccount } from '../support/legacy';
import { PrivateDatabase, PrivateRedis, PrivateServices, startPrivateServices } from '../support/private-services';
import { createProperty, validProperty } from '../support/properties';
import { waitUntil } from '../support/wait';
import { ReceivedRequest, startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { verifyWithLibrary } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';
import { spawnWorkerProcess } from '../support/worker-process';
import { Client } from 'pg';
import { LegacyRetentionService } from '../../src/modules/legacy/legacy-retention.service';

/**
 * The legacy batches' processing and the legacy webhook pipeline (spec 9, docs/legacy.md), with a
 * worker, on a database and Redis of this file's own (the legacy sweep scans every account).
 */
describe('legacy batches and the legacy webhook', () => {
  let db: PrivateDatabase;
  let redis: PrivateRedis;
  let services: PrivateServices | undefined;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    services = await startPrivateServices('legacy', {
      LEGACY_SWEEP_INTERVAL_MS: '200',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
    });
    ({ db, redis, env } = services);
    t = await startApp(env);
    receiver = await startReceiver();
  }, 60_000);
  afterEach(async () => {
    await redis.start();
    await worker?.close();
    worker = undefined;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await services?.close();
  });

  const bodies = (requests: ReceivedRequest[]) => requests.map((r) => JSON.parse(r.rawBody) as Record<string, any>);
  const at = (path: string) => (r: ReceivedRequest) => r.path === path;

  async function finished(api: ApiClient, batchId: string) {
    return waitUntil(
      async () => {
        const res = await api.get(`/legacy/batch/${batchId}`).expect(200);
        return res.body.status === 'completed' ? res.body : undefined;
      },
      60_000,
      `batch ${batchId} completed`,
    );
  }

  it('applies 20 mixed records in order through the Platform services, with the right webhooks and state', async () => {
    worker = await startWorker(env);
    const a = await createLegacyAccount(t);
    await a.legacy
      .put('/legacy/webhook')
      .send({ url: `${receiver.url}/mixed` })
      .expect(200);

    // What the updates and deletes name, created on the Platform API beforehand.
    const home = await createProperty(a.platform);
    const spare = await createProperty(a.platform);
    const checklist = await createChecklist(a.platform, home.propertyId);
    const booking = (await a.platform.post('/v1/bookings').send(validBooking(home.propertyId)).expect(201)).body;
    const job = (await a.platform.post('/v1/jobRequests').send(validJob(home.propertyId)).expect(201)).body;
    const reminder = (
      await a.platform.post('/v1/reminders').send({ title: 'Pool', date: '2030-07-01T10:00:00Z', propertyId: home.propertyId }).expect(201)
    ).body;
    const created = validProperty({ sourceId: 'legacy-created-1' });
    const invalid = validProperty({ name: undefined, colour: 'red' });

    const records = [
      { entity: 'property', action: 'create', data: created },
      { entity: 'property', action: 'update', entityId: home.propertyId, changes: { name: 'Renamed by legacy' } },
      {
        entity: 'checklist',
        action: 'create',
        data: { title: 'Legacy list', propertyId: home.propertyId, taskGroups: [{ title: 'Kitchen', tasks: [{ label: 'Wipe' }] }] },
      },
      { entity: 'checklist', action: 'update', entityId: checklist.checklistId, changes: { title: 'Renamed list' } },
      // Record 4 names the property record 0 created, by its sourceId: creation order holds.
      {
        entity: 'booking',
        action: 'create',
        data: validBooking(home.propertyId, { propertyId: undefined, sourcePropertyId: 'legacy-created-1' }),
      },
      { entity: 'booking', action: 'update', entityId: booking.bookingId, changes: { numberOfGuests: 5 } },
      {
        entity: 'reminder',
        action: 'create',
        data: { title: 'Legacy reminder', date: '2030-08-01T10:00:00Z', sourcePropertyId: 'legacy-created-1' },
      },
      { entity: 'jobRequest', action: 'create', data: validJob(home.propertyId) },
      { entity: 'jobRequest', action: 'update', entityId: job.jobRequestId, changes: { offeredPrice: 99 } },
      { entity: 'property', action: 'create', data: invalid },
      { entity: 'property', action: 'update', entityId: home.propertyId, changes: { tags: ['legacy'] } },
      { entity: 'reminder', action: 'delete', entityId: reminder.reminderId },
      { entity: 'booking', action: 'delete', entityId: booking.bookingId },
      { entity: 'checklist', action: 'delete', entityId: checklist.checklistId },
      { entity: 'jobRequest', action: 'delete', entityId: job.jobRequestId },
      { entity: 'property', action: 'delete', entityId: spare.propertyId },
      { entity: 'property', action: 'create', data: validProperty({ sourceId: 'legacy-created-2' }) },
      { entity: 'property', action: 'update', entityId: home.propertyId, changes: { beds: 7 } },
      { entity: 'booking', action: 'create', data: validBooking(home.propertyId) },
      { entity: 'property', action: 'update', entityId: home.propertyId, changes: { bathrooms: 3 } },
    ].map((record, i) => ({ clientRequestId: `mixed-${i}`, ...record }));

    const ack = await a.legacy.post('/legacy/batch').send({ records }).expect(202);
    expect(ack.body).toEqual({ batchId: expect.stringMatching(/^lbat_/), accepted: 20 });
    const batch = await finished(a.legacy, ack.body.batchId);

    expect(batch.records.map((r: { status: string }) => r.status)).toEqual(records.map((_, i) => (i === 9 ? 'failed' : 'succeeded')));
    // The failure names what POST /v1/properties would have named for the same body.
    const platformProblem = (await a.platform.post('/v1/properties').send(invalid).expect(400)).body;
    expect(batch.records[9]).toEqual(
      expect.objectContaining({ code: platformProblem.code, errors: platformProblem.errors, clientRequestId: 'mixed-9' }),
    );

    // Platform state.
    const renamed = (await a.platform.get(`/v1/properties/${home.propertyId}`).expect(200)).body;
    expect(renamed).toEqual(expect.objectContaining({ name: 'Renamed by legacy', tags: ['legacy'], beds: 7, bathrooms: 3 }));
    await a.platform.get(`/v1/properties/${spare.propertyId}`).expect(404);
    await a.platform.get(`/v1/bookings/${booking.bookingId}`).expect(404);
    await a.platform.get(`/v1/reminders/${reminder.reminderId}`).expect(404);
    expect((await a.platform.get(`/v1/jobRequests/${job.jobRequestId}`).expect(200)).body.status).toBe(3);
    const createdId = batch.records[0].entityId;
    expect((await a.platform.get(`/v1/properties/${createdId}`).expect(200)).body.sourceId).toBe('legacy-created-1');
    const legacyBooking = (await a.platform.get(`/v1/bookings/${batch.records[4].entityId}`).expect(200)).body;
    expect(legacyBooking.propertyId).toBe(createdId);

    // The legacy webhook: per record its resource event (or legacy.validationError), records in order.
    const expected: Record<number, string> = {
      0: 'property.create',
      1: 'property.update',
      2: 'checklist.create',
      3: 'checklist.update',
      4: 'booking.create',
      5: 'booking.update',
      6: 'reminder.create',
      7: 'jobRequest.created',
      8: 'jobRequest.updated',
      9: 'legacy.validationError',
      10: 'property.update',
      11: 'reminder.delete',
      12: 'booking.delete',
      13: 'checklist.disable',
      14: 'jobRequest.canceled',
      15: 'property.delete',
      16: 'property.create',
      17: 'property.update',
      18: 'booking.create',
      19: 'property.update',
    };
    const received = await waitUntil(
      async () => {
        const got = bodies(receiver.requests.filter(at('/mixed'))).filter((b) => /^mixed-/.test(b.clientRequestId));
        const names = new Set(got.map((b) => `${b.clientRequestId} ${b.eventName}`));
        return Object.entries(expected).every(([i, name]) => names.has(`mixed-${i} ${name}`)) ? got : undefined;
      },
      60_000,
      'every record event at the legacy webhook',
    );
    const firstAt = (i: number) =>
      Math.min(...received.filter((b) => b.clientRequestId === `mixed-${i}`).map((b) => Date.parse(b.createdAt)));
    for (let i = 1; i < 20; i++) expect(firstAt(i)).toBeGreaterThanOrEqual(firstAt(i - 1));
    expect(new Set(received.map((b) => b.apiRequestId))).toEqual(new Set([ack.headers['x-request-id']]));
    const failure = received.find((b) => b.eventName === 'legacy.validationError')!;
    expect(failure.results).toEqual([
      { clientRequestId: 'mixed-9', entity: 'property', action: 'create', code: platformProblem.code, errors: platformProblem.errors },
    ]);
    // Each record was applied once: one event of its name per record.
    for (const [i, name] of Object.entries(expected)) {
      expect(received.filter((b) => b.clientRequestId === `mixed-${i}` && b.eventName === name)).toHaveLength(1);
    }
    // The delivery log of the legacy webhook lists them.
    const log = (await a.legacy.get('/legacy/webhook/deliveries?limit=100').expect(200)).body.data;
    expect(log.length).toBeGreaterThanOrEqual(20);
  }, 120_000);

  it('delivers a Platform write to both pipelines with the same body bytes, the legacy one unsigned', async () => {
    worker = await startWorker(env);
    const a = await createLegacyAccount(t);
    await a.legacy
      .put('/legacy/webhook')
      .send({ url: `${receiver.url}/both-legacy` })
      .expect(200);
    const sub = (
      await a.platform
        .post('/v1/webhooks')
        .send({ url: `${receiver.url}/both-platform`, eventFilters: ['*'] })
        .expect(201)
    ).body;

    const property = await createProperty(a.platform);
    const [legacy] = await receiver.waitFor(1, 30_000, at('/both-legacy'));
    const [platform] = await receiver.waitFor(1, 30_000, at('/both-platform'));
    // notifiedAt is stamped per attempt (spec 6.1 rule 2): every other byte is the same.
    const unstamped = (raw: string) => raw.replace(/,"notifiedAt":"[^"]+"/, '');
    expect(unstamped(legacy.rawBody)).toBe(unstamped(platform.rawBody));
    expect(JSON.parse(legacy.rawBody)).toEqual(
      expect.objectContaining({ eventName: 'property.create', results: [expect.objectContaining({ propertyId: property.propertyId })] }),
    );
    verifyWithLibrary(platform, sub.signingSecret);
    expect(legacy.headers['webhook-signature']).toBeUndefined();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-retry-count', 'webhook-max-retries', 'content-type']) {
      expect(legacy.headers[name]).toEqual(expect.any(String));
    }
    expect(legacy.headers['webhook-id']).not.toBe(platform.headers['webhook-id']);
    // The attempt is recorded once the receiver has answered: poll the log.
    const log = await waitUntil(
      async () => {
        const rows = (await a.legacy.get('/legacy/webhook/deliveries').expect(200)).body.data;
        return rows[0]?.status === 'delivered' ? rows : undefined;
      },
      30_000,
      'the legacy delivery recorded',
    );
    expect(log).toEqual([expect.objectContaining({ id: legacy.headers['webhook-id'], eventName: 'property.create', status: 'delivered' })]);
  }, 60_000);

  it('retries the legacy webhook on the same schedule', async () => {
    worker = await startWorker(env);
    const a = await createLegacyAccount(t);
    await a.legacy
      .put('/legacy/webhook')
      .send({ url: `${receiver.url}/retry-legacy` })
      .expect(200);
    receiver.enqueue({ status: 500 });
    await createProperty(a.platform);
    const [first, second] = await receiver.waitFor(2, 30_000, at('/retry-legacy'));
    expect([first.headers['webhook-retry-count'], second.headers['webhook-retry-count']]).toEqual(['0', '1']);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
  }, 60_000);

  it('resumes a batch whose worker was killed mid-batch without applying any record twice', async () => {
    const a = await createLegacyAccount(t);
    const home = await createProperty(a.platform);
    const records = Array.from({ length: 10 }, (_, i) =>
      i === 5
        ? {
            clientRequestId: `kill-${i}`,
            entity: 'property',
            action: 'update',
            entityId: home.propertyId,
            changes: { name: 'After the kill' },
          }
        : { clientRequestId: `kill-${i}`, entity: 'property', action: 'create', data: validProperty({ sourceId: `kill-created-${i}` }) },
    );
    // Record 5 waits on this row lock, so the worker is surely killed in the middle of the batch.
    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT id FROM properties WHERE id = $1 FOR UPDATE', [home.propertyId]);
    const child = await spawnWorkerProcess({ ...env, LEGACY_SWEEP_INTERVAL_MS: '200' });
    try {
      const ack = await a.legacy.post('/legacy/batch').send({ records }).expect(202);
      await waitUntil(
        async () => {
          const batch = (await a.legacy.get(`/legacy/batch/${ack.body.batchId}`).expect(200)).body;
          const [{ waiting }] = await db.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted`);
          return batch.processed === 5 && waiting > 0;
        },
        60_000,
        'the worker to stop at record 5',
      );
      child.child.kill('SIGKILL');
      await child.exited;
    } finally {
      child.child.kill('SIGKILL');
      await blocker.query('ROLLBACK');
      await blocker.end();
    }

    worker = await startWorker(env);
    const batchId = (await db.query<{ id: string }>(`SELECT id FROM legacy_batches WHERE account_id = $1`, [a.account.accountId]))[0].id;
    const batch = await finished(a.legacy, batchId);
    expect(batch.records.map((r: { status: string }) => r.status)).toEqual(records.map(() => 'succeeded'));
    expect((await a.platform.get(`/v1/properties/${home.propertyId}`).expect(200)).body.name).toBe('After the kill');
    const events = await db.query<{ client_request_id: string; event_name: string }>(
      `SELECT client_request_id, event_name FROM events WHERE account_id = $1 AND client_request_id LIKE 'kill-%'`,
      [a.account.accountId],
    );
    expect(events.map((e) => e.client_request_id).sort()).toEqual(records.map((r) => r.clientRequestId).sort());
    const created = await db.query<{ source_id: string }>(
      `SELECT source_id FROM properties WHERE account_id = $1 AND source_id LIKE 'kill-created-%'`,
      [a.account.accountId],
    );
    expect(created).toHaveLength(9);
  }, 120_000);

  it('at the sunset: pending batches fail with a final legacy.validationError, then the legacy webhook stops', async () => {
    const a = await createLegacyAccount(t);
    await a.legacy
      .put('/legacy/webhook')
      .send({ url: `${receiver.url}/sunset-legacy` })
      .expect(200);
    await a.platform
      .post('/v1/webhooks')
      .send({ url: `${receiver.url}/sunset-platform`, eventFilters: ['*'] })
      .expect(201);
    const ack = await a.legacy
      .post('/legacy/batch')
      .send({ records: [0, 1].map((i) => ({ clientRequestId: `late-${i}`, entity: 'property', action: 'create', data: validProperty() })) })
      .expect(202);

    // The worker's clock is past the sunset (set by configuration).
    worker = await startWorker({ ...env, LEGACY_SUNSET_AT: new Date(Date.now() - 1000).toISOString() });
    const batch = await finished(a.legacy, ack.body.batchId);
    expect(batch.records).toEqual(
      [0, 1].map((i) => expect.objectContaining({ clientRequestId: `late-${i}`, status: 'failed', code: 'legacyApiRetired' })),
    );
    const finals = await receiver.waitFor(2, 30_000, at('/sunset-legacy'));
    expect(
      bodies(finals)
        .map((b) => [b.eventName, b.results[0].clientRequestId, b.results[0].code])
        .sort(),
    ).toEqual([
      ['legacy.validationError', 'late-0', 'legacyApiRetired'],
      ['legacy.validationError', 'late-1', 'legacyApiRetired'],
    ]);
    expect((await a.platform.get('/v1/properties').expect(200)).body.data).toEqual([]);

    // A Platform write now reaches the Platform subscription only.
    await createProperty(a.platform);
    await receiver.waitFor(1, 30_000, (r) => r.path === '/sunset-platform' && JSON.parse(r.rawBody).eventName === 'property.create');
    const log = (await a.legacy.get('/legacy/webhook/deliveries').expect(200)).body.data;
    expect(log.map((d: { eventName: string }) => d.eventName)).toEqual(['legacy.validationError', 'legacy.validationError']);
  }, 60_000);

  it('deletes completed batches and their records after 90 days, and nothing younger or still open', async () => {
    worker = await startWorker(env);
    const a = await createLegacyAccount(t);
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const body = { records: [{ clientRequestId: `ret-${i}`, entity: 'reminder', action: 'delete', entityId: 'rem_x' }] };
      ids.push((await a.legacy.post('/legacy/batch').send(body).expect(202)).body.batchId);
    }
    for (const id of ids) await finished(a.legacy, id);
    await db.query(`UPDATE legacy_batches SET completed_at = now() - interval '91 days' WHERE id = $1`, [ids[0]]);
    await db.query(`UPDATE legacy_batches SET completed_at = now() - interval '89 days' WHERE id = $1`, [ids[1]]);
    await db.query(`UPDATE legacy_batches SET completed_at = NULL, created_at = now() - interval '100 days' WHERE id = $1`, [ids[2]]);
    await worker.ctx.get(LegacyRetentionService).run();
    const left = await db.query<{ id: string }>(`SELECT id FROM legacy_batches WHERE id = ANY($1) ORDER BY id`, [ids]);
    expect(left.map((row) => row.id)).toEqual([ids[1], ids[2]]);
    expect(await db.query(`SELECT 1 FROM legacy_batch_records WHERE batch_id = $1`, [ids[0]])).toEqual([]);
  }, 60_000);

  it('acknowledges and processes a batch while Redis is down (the sweep takes what the queue lost)', async () => {
    worker = await startWorker(env);
    const a = await createLegacyAccount(t);
    await redis.stop();
    const records = [0, 1, 2].map((i) => ({
      clientRequestId: `no-redis-${i}`,
      entity: 'property',
      action: 'create',
      data: validProperty({ sourceId: `no-redis-${i}` }),
    }));
    const ack = await a.legacy.post('/legacy/batch').send({ records }).expect(202);
    const batch = await finished(a.legacy, ack.body.batchId);
    expect(batch.records.map((r: { status: string }) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const created = await db.query(`SELECT 1 FROM properties WHERE account_id = $1 AND source_id LIKE 'no-redis-%'`, [a.account.accountId]);
    expect(created).toHaveLength(3);
  }, 90_000);
});
