import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { WebhookDeliveriesRepository } from '../../src/modules/webhooks/webhook-deliveries.repository';
import { WebhookReplaysRepository } from '../../src/modules/webhooks/webhook-replays.repository';
import { ApiClient, clientFor, createAccount, TestAccount, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver';
import { deliveriesOf, publishEvent, subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * Replay and single-delivery retry (issue 13, an extension of the spec): a window replayed after a
 * receiver outage reaches it once per event, in event order, at the bounded rate, with the original
 * webhook-id and a new attempt number; one running replay per subscription; dryRun counts only.
 * The resume after a worker kill is in webhooks-replay-resume.e2e-spec.ts.
 */
const RATE = 10;
const ENV = webhookTestEnv('replay', { ...QUICK_RETRIES, WEBHOOK_REPLAY_RATE_PER_SECOND: String(RATE) });

describe('webhook replay and retry', () => {
  let t: TestApp;
  let db: DataSource;
  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t, db } = engine.started()));

  /** A fresh account whose one subscription (no retries) saw `count` events fail during an outage. */
  async function afterOutage(count: number, eventName = 'property.create') {
    const account: TestAccount = await createAccount(t);
    const api: ApiClient = clientFor(t, account);
    const r = await receiver();
    // 429 with Retry-After: counted towards auto-disable once per window, so the subscription stays enabled.
    r.respondWith(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const sub = await subscribe(api, `${r.url}/outage`, ['property.*'], 0);
    const since = new Date(Date.now() - 1000).toISOString();
    const events = [];
    for (let i = 0; i < count; i++) events.push(await publishEvent(t, account.accountId, eventName));
    const failed = await waitForFinalDeliveries(api, sub.id, count);
    expect(failed.every((row) => row.status === 'failed_permanent')).toBe(true);
    r.respondWith(() => ({ status: 204 }));
    return { account, api, r, sub, since, events, failed, outageRequests: r.requests.length };
  }

  function waitForReplay(api: ApiClient, subId: string, replayId: string, status = 'completed', timeoutMs = 20_000) {
    return waitUntil(
      async () => {
        const res = await api.get(`/v1/webhooks/${subId}/replays/${replayId}`).expect(200);
        return res.body.status === status ? res.body : undefined;
      },
      timeoutMs,
      `replay ${replayId} ${status}`,
    );
  }

  const replayed = (r: WebhookReceiver, from: number): ReceivedRequest[] => r.requests.slice(from);

  it('replays the missed events once each, in event order, with the original webhook-id and a new attempt number', async () => {
    const { api, r, sub, since, events, failed, outageRequests } = await afterOutage(8);
    const dry = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true, dryRun: true }).expect(202);
    expect(dry.body).toEqual({ dryRun: true, total: 8 });
    expect(r.requests).toHaveLength(outageRequests);

    const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true }).expect(202);
    expect(started.body).toMatchObject({
      id: expect.stringMatching(/^rpl_/),
      webhookId: sub.id,
      status: 'running',
      total: 8,
      onlyFailed: true,
    });
    const done = await waitForReplay(api, sub.id, started.body.id);
    expect(done).toMatchObject({ status: 'completed', total: 8, done: 8, skipped: 0, finishedAt: expect.any(String) });
    await waitUntil(async () => (await deliveriesOf(api, sub.id)).every((row) => row.status === 'delivered'), 10_000, 'all delivered');
    expect((await api.get(`/v1/webhooks/${sub.id}/replays/${started.body.id}`).expect(200)).body).toMatchObject({
      delivered: 8,
      failed: 0,
    });

    const got = replayed(r, outageRequests);
    expect(got).toHaveLength(8);
    // In event order, each event once, with the webhook-id of its original delivery.
    const byEvent = new Map(failed.map((row) => [row.eventId, row.id]));
    const createdAt = got.map((q) => JSON.parse(q.rawBody).createdAt);
    expect(createdAt).toEqual(events.map((event) => event.createdAt.toISOString()));
    expect(got.map((q) => q.headers['webhook-id'])).toEqual(events.map((event) => byEvent.get(event.id)));
    expect(got.map((q) => q.headers['webhook-retry-count'])).toEqual(Array(8).fill('1'));

    // The log shows the new round on the same delivery.
    const [row] = await deliveriesOf(api, sub.id);
    expect(row).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(row.attempts.map((a: { responseCode: number }) => a.responseCode)).toEqual([429, 204]);

    // Nothing failed any more: a second onlyFailed replay has nothing to do.
    const again = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true }).expect(202);
    expect(again.body.total).toBe(0);
    expect(await waitForReplay(api, sub.id, again.body.id)).toMatchObject({ done: 0 });
    expect(r.requests).toHaveLength(outageRequests + 8);
  });

  it('keeps to the rate bound (WEBHOOK_REPLAY_RATE_PER_SECOND)', async () => {
    const { api, r, sub, since, outageRequests } = await afterOutage(12);
    const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since }).expect(202);
    await waitForReplay(api, sub.id, started.body.id);
    const got = replayed(r, outageRequests);
    expect(got).toHaveLength(12);
    // Sent one at a time, each at least 1/RATE s after the previous one started: a lower bound only.
    const span = got[got.length - 1].receivedAt.getTime() - got[0].receivedAt.getTime();
    expect(span).toBeGreaterThanOrEqual(((got.length - 2) * 1000) / RATE);
  });

  it('allows one running replay per subscription (409 with existingId); eventFilters narrow it; a window must make sense', async () => {
    const { api, sub, since } = await afterOutage(15);
    const first = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since }).expect(202);
    const second = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since }).expect(409);
    expect(second.body).toMatchObject({ code: 'conflict', existingId: first.body.id });
    await waitForReplay(api, sub.id, first.body.id);

    const none = await api
      .post(`/v1/webhooks/${sub.id}/replay`)
      .send({ since, eventFilters: ['booking.*'], dryRun: true })
      .expect(202);
    expect(none.body).toEqual({ dryRun: true, total: 0 });
    const all = await api
      .post(`/v1/webhooks/${sub.id}/replay`)
      .send({ since, eventFilters: ['*'], dryRun: true })
      .expect(202);
    expect(all.body).toEqual({ dryRun: true, total: 15 });

    await api
      .post(`/v1/webhooks/${sub.id}/replay`)
      .send({ since: new Date(Date.now() + 60_000).toISOString() })
      .expect(400);
    const old = new Date(Date.now() - 91 * 24 * 3600 * 1000).toISOString();
    await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since: old }).expect(400);
    await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, extra: 1 }).expect(400);
    await api.post(`/v1/webhooks/${sub.id}/replay`).send({}).expect(400);
    await clientFor(t, await createAccount(t))
      .post(`/v1/webhooks/${sub.id}/replay`)
      .send({ since })
      .expect(404);
    await api.get(`/v1/webhooks/${sub.id}/replays/rpl_00000000000000000000000000`).expect(404);
    await clientFor(t, await createAccount(t))
      .get(`/v1/webhooks/${sub.id}/replays/${first.body.id}`)
      .expect(404);
  });

  it('retries one delivery at once: same webhook-id, next attempt number; 409 in flight or disabled; 404 elsewhere', async () => {
    const { api, r, sub, failed, outageRequests } = await afterOutage(1);
    const [row] = failed;
    const res = await api.post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`).expect(202);
    expect(res.body).toEqual({ deliveryId: row.id, status: 'pending', attempt: 1 });
    const [again] = await r.waitFor(outageRequests + 1);
    expect(r.requests[outageRequests].headers['webhook-id']).toBe(row.id);
    expect(r.requests[outageRequests].headers['webhook-retry-count']).toBe('1');
    expect(again).toBeDefined();
    const [after] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(after).toMatchObject({ status: 'delivered', attemptCount: 2 });

    // A delivered one can be sent again too (a new round).
    await api.post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`).expect(202);
    await waitUntil(
      async () => (await api.get(`/v1/webhooks/${sub.id}/deliveries/${row.id}`).expect(200)).body.attemptCount === 3,
      10_000,
      'the third attempt recorded',
    );
    expect(r.requests[outageRequests + 1].headers['webhook-retry-count']).toBe('2');

    await db.query(`UPDATE webhook_deliveries SET in_flight_until = now() + interval '1 minute' WHERE id = $1`, [row.id]);
    const inFlight = await api.post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`).expect(409);
    expect(inFlight.body.code).toBe('conflict');
    await db.query(`UPDATE webhook_deliveries SET in_flight_until = NULL WHERE id = $1`, [row.id]);

    await api.patch(`/v1/webhooks/${sub.id}`).send({ enabled: false }).expect(200);
    await api.post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`).expect(409);
    await api
      .post(`/v1/webhooks/${sub.id}/replay`)
      .send({ since: new Date(Date.now() - 60_000).toISOString() })
      .expect(409);
    await api.post(`/v1/webhooks/${sub.id}/deliveries/whd_00000000000000000000000000/retry`).expect(404);
    await api.post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`).send({ x: 1 }).expect(400);
    await clientFor(t, await createAccount(t))
      .post(`/v1/webhooks/${sub.id}/deliveries/${row.id}/retry`)
      .expect(404);
  });

  it("a manual retry of a delivery a replay opened and that ended takes it out of the replay's delivered / failed", async () => {
    const { api, sub, since, failed } = await afterOutage(2);
    const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since }).expect(202);
    await waitForReplay(api, sub.id, started.body.id);
    await waitUntil(async () => (await deliveriesOf(api, sub.id)).every((row) => row.status === 'delivered'), 10_000, 'both delivered');
    const replayPath = `/v1/webhooks/${sub.id}/replays/${started.body.id}`;
    expect((await api.get(replayPath).expect(200)).body).toMatchObject({ total: 2, done: 2, delivered: 2, failed: 0 });

    const retried = failed[0].id;
    await api.post(`/v1/webhooks/${sub.id}/deliveries/${retried}/retry`).expect(202);
    expect((await api.get(replayPath).expect(200)).body).toMatchObject({ total: 2, done: 2, delivered: 1, failed: 0 });
    await waitUntil(
      async () => (await api.get(`/v1/webhooks/${sub.id}/deliveries/${retried}`).expect(200)).body.attemptCount === 3,
      10_000,
      'the retried attempt recorded',
    );
    expect((await api.get(replayPath).expect(200)).body).toMatchObject({ total: 2, done: 2, delivered: 1, failed: 0 });
  });

  it('counts and replays events committed while an older transaction is still open (the feed waits behind it; a replay does not)', async () => {
    // An open transaction holding a transaction id: the feed's horizon (pg_snapshot_xmin) stays behind it.
    const older = db.createQueryRunner();
    await older.startTransaction();
    try {
      await older.query('SELECT pg_current_xact_id()');
      const { api, sub, since } = await afterOutage(2);
      expect((await api.get('/v1/events').expect(200)).body.data).toEqual([]);

      const dry = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true, dryRun: true }).expect(202);
      expect(dry.body).toEqual({ dryRun: true, total: 2 });
      const started = await api.post(`/v1/webhooks/${sub.id}/replay`).send({ since, onlyFailed: true }).expect(202);
      expect(await waitForReplay(api, sub.id, started.body.id)).toMatchObject({ total: 2, done: 2 });
    } finally {
      await older.rollbackTransaction();
      await older.release();
    }
  });

  it('a retry racing the deletion of its subscription (or of the delivery) answers 404, not 409; an attempt taking it meanwhile stays a 409', async () => {
    const rows = t.app.get(WebhookDeliveriesRepository);
    const reopenNow = rows.reopenNow.bind(rows);
    /** Runs `remove` after the retry's checks, just before its update of the delivery row. */
    const racing = async (remove: () => Promise<unknown>, retry: () => Promise<Response>) => {
      const spy = jest.spyOn(rows, 'reopenNow').mockImplementationOnce(async (checked) => {
        await remove();
        return reopenNow(checked);
      });
      try {
        const res = await retry();
        expect(spy).toHaveBeenCalledTimes(1);
        return res;
      } finally {
        spy.mockRestore();
      }
    };

    // The subscription deleted: its deliveries go with it (cascade); the answer is the subscription's 404.
    const first = await afterOutage(1);
    const path = `/v1/webhooks/${first.sub.id}/deliveries/${first.failed[0].id}/retry`;
    const gone = expectProblem(
      await racing(
        () => first.api.delete(`/v1/webhooks/${first.sub.id}`).expect(204),
        () => first.api.post(path),
      ),
      404,
      'notFound',
      path,
    );
    expect(gone.detail).toBe(`Webhook subscription ${first.sub.id} was not found`);
    const after = expectProblem(await first.api.post(path), 404, 'notFound', path);
    expect({ ...gone, requestId: undefined }).toEqual({ ...after, requestId: undefined });

    // The delivery alone deleted (retention): the delivery's 404.
    const second = await afterOutage(1);
    const deliveryId = second.failed[0].id;
    const missing = expectProblem(
      await racing(
        () => db.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [deliveryId]),
        () => second.api.post(`/v1/webhooks/${second.sub.id}/deliveries/${deliveryId}/retry`),
      ),
      404,
      'notFound',
    );
    expect(missing.detail).toBe(`Webhook delivery ${deliveryId} was not found`);
    expect(second.r.requests).toHaveLength(second.outageRequests);

    // An attempt claimed the delivery meanwhile: still the in-flight 409.
    const third = await afterOutage(1);
    const claimed = third.failed[0].id;
    const busy = await racing(
      () => db.query(`UPDATE webhook_deliveries SET in_flight_until = now() + interval '1 minute' WHERE id = $1`, [claimed]),
      () => third.api.post(`/v1/webhooks/${third.sub.id}/deliveries/${claimed}/retry`),
    );
    expect(expectProblem(busy, 409, 'conflict').detail).toMatch(/has an attempt in flight/);
  });

  it("a replay racing the deletion of its subscription answers the subscription's 404, not a 500, and leaves no replay", async () => {
    const { api, sub, since } = await afterOutage(1);
    const replays = t.app.get(WebhookReplaysRepository);
    const insert = replays.insert.bind(replays);
    // The subscription is deleted after the start's checks, just before the replay row is inserted.
    const spy = jest.spyOn(replays, 'insert').mockImplementationOnce(async (row) => {
      await api.delete(`/v1/webhooks/${sub.id}`).expect(204);
      return insert(row);
    });
    const path = `/v1/webhooks/${sub.id}/replay`;
    try {
      const gone = expectProblem(await api.post(path).send({ since }), 404, 'notFound', path);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(gone.detail).toBe(`Webhook subscription ${sub.id} was not found`);
    } finally {
      spy.mockRestore();
    }
    const [left] = await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhook_replays WHERE subscription_id = $1`, [
      sub.id,
    ]);
    expect(left.n).toBe(0);
  });
});
