import { WebhookSubscriptionsRepository } from '../../src/modules/webhooks/webhook-subscriptions.repository';
import { createProperty, uniq } from '../support/properties';
import { CONFLICT, expectAnswer, holdFirstCall, KEY_KINDS, NOT_FOUND, oneWinner, ROUNDS, useRaceApp } from '../support/races';
import { createSubscription, hookUrl, openStored } from '../support/webhooks-api';

/**
 * Conflicting writes at an account's configuration, sent at the same moment round after round: webhook
 * subscriptions (PATCH and DELETE, two secret rotations, a test delivery while the subscription is
 * deleted, two creates or PATCHes claiming one url) and calendar feeds (PATCH and DELETE, a sync request
 * while the feed is deleted, two creates with one url). Each round: no 5xx, every answer a success or a
 * 404 / 409 problem, the state and the events feed exactly what the answers imply (test/support/races.ts).
 * The race these found is forced at the end.
 */

describe.each(KEY_KINDS)('Concurrent conflicting writes with a %s key: never a 5xx, state and events as the answers say', (kind) => {
  const races = useRaceApp('config', kind);
  const { open } = races;

  describe('webhook subscriptions', () => {
    it('PATCH and DELETE of one subscription: the delete always wins', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const [patch, del] = await r.together(
          round,
          ['PATCH webhook', () => r.api.patch(`/v1/webhooks/${sub.id}`).send({ eventFilters: ['booking.*'], enabled: false })],
          ['DELETE webhook', () => r.api.delete(`/v1/webhooks/${sub.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        if (patch.status === 200) expect(patch.body).toMatchObject({ id: sub.id, eventFilters: ['booking.*'], enabled: false });
        const listed = (await r.api.get('/v1/webhooks').expect(200)).body.data;
        expect(listed.map((s: any) => s.id)).not.toContain(sub.id);
      }
      await r.verifyFeed();
    });

    it('rotateSecret twice at once: both 200, and the two secrets they returned are the current and the previous one', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const answers = await r.together(
          round,
          ['rotate (1)', () => r.api.post(`/v1/webhooks/${sub.id}/rotateSecret`)],
          ['rotate (2)', () => r.api.post(`/v1/webhooks/${sub.id}/rotateSecret`)],
        );
        for (const answer of answers) expectAnswer(answer, 200);
        const returned = answers.map((answer) => answer.body.signingSecret);
        expect(new Set(returned).size).toBe(2);
        const [row] = await races.db.query(`SELECT signing_secret, previous_secret FROM webhook_subscriptions WHERE id = $1`, [sub.id]);
        expect([openStored(row.signing_secret, sub.id), openStored(row.previous_secret, sub.id)].sort()).toEqual([...returned].sort());
      }
      await r.verifyFeed();
    });

    it('a test delivery while the subscription is deleted: 202 (then deleted with it) or 404, never a delivery left behind', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const sub = await createSubscription(r.api);
        const [test, del] = await r.together(
          round,
          ['POST test delivery', () => r.api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'booking.create' })],
          ['DELETE webhook', () => r.api.delete(`/v1/webhooks/${sub.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(test, 202, NOT_FOUND);
        const [{ count }] = await races.db.query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE subscription_id = $1`, [
          sub.id,
        ]);
        expect(count).toBe(0);
      }
      await r.verifyFeed();
    });

    it('two creates with one url: one 201, one 409 naming it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const url = hookUrl();
        const answers = await r.together(
          round,
          ['POST webhook (1)', () => r.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })],
          ['POST webhook (2)', () => r.api.post('/v1/webhooks').send({ url, eventFilters: ['*'] })],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body.existingId).toBe(created.body.id);
      }
      await r.verifyFeed();
    });

    it('two PATCHes giving two subscriptions one url: one 200, one 409 naming it', async () => {
      const r = await open();
      for (let round = 0; round < ROUNDS; round++) {
        const [a, b] = [await createSubscription(r.api), await createSubscription(r.api)];
        const url = hookUrl();
        const answers = await r.together(
          round,
          ['PATCH webhook a url', () => r.api.patch(`/v1/webhooks/${a.id}`).send({ url })],
          ['PATCH webhook b url', () => r.api.patch(`/v1/webhooks/${b.id}`).send({ url })],
        );
        const [winner, loser] = oneWinner(answers, 200);
        expectAnswer(loser, CONFLICT);
        expect(loser.body.existingId).toBe(winner.body.id);
      }
      await r.verifyFeed();
    });
  });

  describe('calendar feeds', () => {
    const feedUrl = () => `https://localhost/cal/${uniq()}.ics`;

    it('PATCH and DELETE of one feed: the delete always wins', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const feed = (await r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url: feedUrl() }).expect(201)).body;
        const [patch, del] = await r.together(
          round,
          ['PATCH feed', () => r.api.patch(`/v1/calendarFeeds/${feed.id}`).send({ label: `Airbnb ${round}`, checkInTime: '15:00' })],
          ['DELETE feed', () => r.api.delete(`/v1/calendarFeeds/${feed.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(patch, 200, NOT_FOUND);
        if (patch.status === 200) expect(patch.body).toMatchObject({ id: feed.id, label: `Airbnb ${round}`, checkInTime: '15:00' });
        await r.api.get(`/v1/calendarFeeds/${feed.id}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('a sync request while the feed is deleted: 202 or 404, and the feed is gone', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS; round++) {
        const feed = (await r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url: feedUrl() }).expect(201)).body;
        const [sync, del] = await r.together(
          round,
          ['POST feed sync', () => r.api.post(`/v1/calendarFeeds/${feed.id}/sync`)],
          ['DELETE feed', () => r.api.delete(`/v1/calendarFeeds/${feed.id}`)],
        );
        expectAnswer(del, 204);
        expectAnswer(sync, 202, NOT_FOUND);
        if (sync.status === 202) expect(sync.body).toMatchObject({ id: feed.id });
        await r.api.get(`/v1/calendarFeeds/${feed.id}`).expect(404);
      }
      await r.verifyFeed();
    });

    it('two creates with one url on one property: one 201, one 409 naming it', async () => {
      const r = await open();
      const p = await createProperty(r.api);
      for (let round = 0; round < ROUNDS / 2; round++) {
        const url = feedUrl();
        const answers = await r.together(
          round,
          ['POST feed (1)', () => r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url })],
          ['POST feed (2)', () => r.api.post(`/v1/properties/${p.propertyId}/calendarFeeds`).send({ url })],
        );
        const [created, refused] = oneWinner(answers, 201);
        expectAnswer(refused, CONFLICT);
        expect(refused.body.existingId).toBe(created.body.id);
      }
      await r.verifyFeed();
    });
  });

  /*
   * The interleaving the rounds above found wrong, forced: the test delivery is held once it has found its
   * subscription, in the middle of its transaction (a spy on the call), the DELETE is sent and completes,
   * then the test delivery goes on.
   */
  describe('forced interleavings', () => {
    it('a test delivery whose subscription is deleted between finding it and writing the delivery: 404', async () => {
      const r = await open();
      const sub = await createSubscription(r.api);
      const hold = holdFirstCall(
        races.t.app.get(WebhookSubscriptionsRepository),
        'find',
        (_a, id, manager) => id === sub.id && manager !== undefined,
        { after: true },
      );
      try {
        const test = r.send('POST test delivery', r.api.post(`/v1/webhooks/${sub.id}/test`).send({ eventName: 'booking.create' }));
        await hold.reached;
        expectAnswer(await r.send('DELETE webhook', r.api.delete(`/v1/webhooks/${sub.id}`)), 204);
        hold.release();
        expectAnswer(await test, NOT_FOUND);
      } finally {
        hold.restore();
      }
      await r.verifyFeed();
    });
  });
});
