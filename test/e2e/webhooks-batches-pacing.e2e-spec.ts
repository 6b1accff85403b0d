import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { ApiClient, TestAccount, TestApp } from '../support/app';
import { publishUnchecked } from '../support/events';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import { subscribe, subscriptionOf } from '../support/webhooks';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * Pacing per endpoint (issue 23, an extension of the spec): `rateLimitPerSecond` caps the attempts started
 * per second to a subscription across workers, without delaying the others; its deliveries wait, none fails.
 */
const ENV = webhookTestEnv('pacing', { WEBHOOK_TIMEOUT_MS: '5000' });
const RATE = 10;
const WINDOW_MS = 10_000;

describe('webhook pacing (rateLimitPerSecond)', () => {
  let t: TestApp;
  let account: TestAccount;
  let api: ApiClient;
  const engine = useWebhookEngine(ENV);
  beforeAll(() => ({ t, account, api } = engine.started()));

  it('is accepted on create and update (1-1000, null to switch off) and shown on reads', async () => {
    const r = await engine.receiver();
    const created = await api
      .post('/v1/webhooks')
      .send({ url: `${r.url}/paced-api`, eventFilters: ['*'], rateLimitPerSecond: 5 })
      .expect(201);
    expect(created.body.rateLimitPerSecond).toBe(5);
    expect((await subscriptionOf(api, created.body.id)).rateLimitPerSecond).toBe(5);
    for (const bad of [0, 1001, 1.5, '5', true]) {
      const problem = expectProblem(
        await api.patch(`/v1/webhooks/${created.body.id}`).send({ rateLimitPerSecond: bad }),
        400,
        'validationFailed',
      );
      expect(problem.errors).toEqual([expect.objectContaining({ pointer: '#/rateLimitPerSecond' })]);
    }
    expect(
      (await api.patch(`/v1/webhooks/${created.body.id}`).send({ rateLimitPerSecond: 1000 }).expect(200)).body.rateLimitPerSecond,
    ).toBe(1000);
    expect(
      (await api.patch(`/v1/webhooks/${created.body.id}`).send({ rateLimitPerSecond: null }).expect(200)).body.rateLimitPerSecond,
    ).toBeNull();
    const unpaced = await subscribe(api, `${r.url}/unpaced-api`);
    expect((await subscriptionOf(api, unpaced.id)).rateLimitPerSecond).toBeNull();
  });

  it('holds a paced subscription to its rate within 10% over 10 s while another runs at full speed', async () => {
    const paced = await engine.receiver();
    const free = await engine.receiver();
    const pacedSub = await api
      .post('/v1/webhooks')
      .send({ url: `${paced.url}/paced`, eventFilters: ['pacing.tick'], rateLimitPerSecond: RATE })
      .expect(201);
    await subscribe(api, `${free.url}/free`, ['pacing.tick']);
    // 15 s of the paced subscription's rate, published at once (in transactions of 50).
    const count = RATE * 15;
    for (let n = 0; n < count; n += 50) {
      const ctx = { accountId: account.accountId, requestId: `req_pacing_${n}`, clientRequestId: `client_pacing_${n}` };
      await t.app.get(UnitOfWork).run(ctx, async (tx) => {
        for (let i = 0; i < 50; i++) await publishUnchecked(t.app.get(EventsService), tx, 'pacing.tick', [{ n: n + i }]);
      });
    }

    // The unpaced subscription is not held back: all of its deliveries arrive while the paced one still
    // waits for its turns (it needs 15 s at its rate; a loaded machine slows the unpaced one, not the cap).
    await free.waitFor(count, 20_000);
    expect(paced.requests.length).toBeLessThan(count);

    // Over a 10 s window, starting after the first attempts, the paced receiver gets RATE per second ± 10%.
    await paced.waitFor(count, 60_000);
    const times = paced.requests.map((q) => q.receivedAt.getTime());
    const start = times[5];
    const inWindow = times.filter((at) => at >= start && at < start + WINDOW_MS).length;
    const expected = (RATE * WINDOW_MS) / 1000;
    expect(inWindow).toBeGreaterThanOrEqual(expected * 0.9);
    expect(inWindow).toBeLessThanOrEqual(expected * 1.1);
    // Nothing failed or was sent twice: each delivery once, delivered.
    expect(new Set(paced.requests.map((q) => q.headers['webhook-id'])).size).toBe(count);
    await waitUntil(
      async () => {
        const rows = await api.get(`/v1/webhooks/${pacedSub.body.id}/deliveries?limit=100`).expect(200);
        return rows.body.data.every((row: { status: string }) => row.status === 'delivered') ? true : undefined;
      },
      10_000,
      'the paced deliveries recorded delivered',
    );
  }, 90_000);
});
