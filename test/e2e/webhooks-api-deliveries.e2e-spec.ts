import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { expectProblem } from '../support/problem';
import { webhooksApiSuite } from '../support/webhooks-api';
import { waitUntil } from '../support/wait';

/**
 * Test deliveries and the delivery log (spec 2.8, 4.8 rule 7). No worker runs here: test deliveries
 * stay pending in this file's own Redis prefix, where no other file's worker can take them.
 */
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-webhooks-api-log`;
const DELIVERY_ID = /^whd_[0-9A-Z]{26}$/;

describe('webhook test deliveries and delivery log', () => {
  const w = webhooksApiSuite(REDIS_PREFIX);
  const { create, row } = w;

  describe('POST /v1/webhooks/{webhookId}/test', () => {
    it('queues a synthetic delivery shown in the log and never in the events feed', async () => {
      const s = await create({ eventFilters: ['property.create'] });
      const res = await w.api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'jobRequest.completed' }).expect(202);
      expect(res.body).toEqual({ deliveryId: expect.stringMatching(DELIVERY_ID), status: 'pending' });

      const log = await w.api.get(`/v1/webhooks/${s.id}/deliveries`).expect(200);
      expect(log.body).toEqual({
        data: [
          {
            id: res.body.deliveryId,
            eventId: null,
            eventName: 'jobRequest.completed',
            status: 'pending',
            test: true,
            attemptCount: 0,
            firstAttemptAt: null,
            lastAttemptAt: null,
            nextRetryAt: expect.any(String),
            createdAt: expect.any(String),
            attempts: [],
          },
        ],
        nextCursor: null,
        hasMore: false,
      });

      const [delivery] = await w.db.query(`SELECT * FROM webhook_deliveries WHERE id = $1`, [res.body.deliveryId]);
      expect(delivery.test_payload).toEqual({
        clientRequestId: expect.any(String),
        apiRequestId: res.headers['x-request-id'],
        targetAccountId: (await row(s.id)).account_id,
        createdAt: expect.any(String),
        eventName: 'jobRequest.completed',
        results: [],
        test: true,
      });

      // Enqueued after commit under this file's prefix (job id `<deliveryId>.<attempt>`), on its subscription's delivery queue.
      const queue = w.t.app.get<Queue>(getQueueToken('webhook-delivery'));
      const job = await waitUntil(() => queue.getJob(`${res.body.deliveryId}.0`), 5_000, 'the delivery job');
      expect(job.data).toEqual({ deliveryId: res.body.deliveryId, attempt: 0, subscriptionId: s.id });

      const feed = await w.api.get('/v1/events').expect(200);
      expect(JSON.stringify(feed.body)).not.toContain(res.body.deliveryId);
      expect(feed.body.data.filter((e: { eventName: string }) => e.eventName === 'jobRequest.completed')).toEqual([]);
    });

    it('takes any syntactically valid event name, matching the filters or not', async () => {
      const s = await create({ eventFilters: ['comment.new'] });
      await w.api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'made.up.name9' }).expect(202);
    });

    it('refuses a disabled subscription (409 invalidState) until it is enabled again', async () => {
      const s = await create();
      await w.api.patch(`/v1/webhooks/${s.id}`).send({ enabled: false }).expect(200);
      const problem = expectProblem(await w.api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }), 409, 'invalidState');
      expect(problem.detail).toMatch(/is disabled; enable it/);
      expect(await w.db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
      await w.api.patch(`/v1/webhooks/${s.id}`).send({ enabled: true }).expect(200);
      await w.api.post(`/v1/webhooks/${s.id}/test`).send({ eventName: 'a.b' }).expect(202);
    });

    it.each([
      [{}, 'validationFailed'],
      [{ eventName: 'jobRequest.*' }, 'validationFailed'],
      [{ eventName: '*' }, 'validationFailed'],
      [{ eventName: 'job*' }, 'validationFailed'],
      [{ eventName: 'single' }, 'validationFailed'],
      [{ eventName: 'a..b' }, 'validationFailed'],
      [{ eventName: 7 }, 'validationFailed'],
      [{ eventName: `a.${'b'.repeat(99)}` }, 'validationFailed'],
      [{ eventName: 'a.b', results: [] }, 'objectStrict'],
    ])('rejects %j', async (body, code) => {
      const s = await create();
      expectProblem(await w.api.post(`/v1/webhooks/${s.id}/test`).send(body), 400, code);
      expect(await w.db.query(`SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1`, [s.id])).toEqual([]);
    });
  });

  describe('GET /v1/webhooks/{webhookId}/deliveries', () => {
    let s: Record<string, any>;
    let ids: string[];
    beforeAll(async () => {
      s = await create();
      ids = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push(
          (
            await w.api
              .post(`/v1/webhooks/${s.id}/test`)
              .send({ eventName: `page.n${i}` })
              .expect(202)
          ).body.deliveryId,
        );
      }
    });

    it("pages newest first; nextCursor is the last row's id", async () => {
      const newestFirst = [...ids].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 2, ...(cursor ? { cursor } : {}) };
        const page: { body: { data: Array<{ id: string }>; nextCursor: string | null; hasMore: boolean } } = await w.api
          .get(`/v1/webhooks/${s.id}/deliveries`)
          .query(query)
          .expect(200);
        seen.push(...page.body.data.map((d) => d.id));
        if (page.body.hasMore) expect(page.body.nextCursor).toBe(page.body.data[page.body.data.length - 1].id);
        else expect(page.body.nextCursor).toBeNull();
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(newestFirst);
    });

    it('defaults to 50 and takes limit 1 and 100', async () => {
      expect((await w.api.get(`/v1/webhooks/${s.id}/deliveries`).expect(200)).body.data).toHaveLength(5);
      const one = await w.api.get(`/v1/webhooks/${s.id}/deliveries?limit=1`).expect(200);
      expect(one.body).toMatchObject({ nextCursor: ids[4], hasMore: true });
      await w.api.get(`/v1/webhooks/${s.id}/deliveries?limit=100`).expect(200);
    });

    it.each(['0', '101', '-1', 'abc', '1.5', ''])('rejects limit=%j', async (limit) => {
      const problem = expectProblem(await w.api.get(`/v1/webhooks/${s.id}/deliveries`).query({ limit }), 400, 'validationFailed');
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/limit' })]);
    });

    it('rejects unknown query parameters', async () => {
      expectProblem(await w.api.get(`/v1/webhooks/${s.id}/deliveries?after=${ids[0]}`), 400, 'objectStrict');
    });

    it.each(['garbage', 'whd_01ARZ3NDEKTSV4RRFFQ69G5FAV', "' OR 1=1 --", 'whd_\u0000', 'x'.repeat(600)])(
      'rejects the unknown cursor %j',
      async (cursor) => {
        const res = await w.api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor });
        const code = cursor.length > 512 ? 'validationFailed' : 'invalidCursor';
        const problem = expectProblem(res, 400, code);
        if (code === 'invalidCursor') expect(problem.detail).toMatch(/restart the listing without it/);
      },
    );

    it('rejects a delivery of another subscription as cursor', async () => {
      const sibling = await create();
      const foreign = (await w.api.post(`/v1/webhooks/${sibling.id}/test`).send({ eventName: 'x.y' }).expect(202)).body.deliveryId;
      expectProblem(await w.api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor: foreign }), 400, 'invalidCursor');
      const stranger = await create({}, w.otherApi);
      const theirs = (await w.otherApi.post(`/v1/webhooks/${stranger.id}/test`).send({ eventName: 'x.y' }).expect(202)).body.deliveryId;
      expectProblem(await w.api.get(`/v1/webhooks/${s.id}/deliveries`).query({ cursor: theirs }), 400, 'invalidCursor');
    });
  });
});
