import { join } from 'node:path';
import { BENCH_REDIS_PREFIX, BENCH_REDIS_URL, propertyBody, seedAccount, webhookEnv } from '../support/env';
import type { Pool } from 'undici';
import { BenchContext, Outcome, postJson, ReceiverStats } from '../support/context';
import type { Env } from '../support/env';
import { median } from '../support/load';
import { runJson, startWorker } from '../support/processes';

const EVENTS = 1000;
const SUBSCRIPTIONS = 10;
const DELIVERIES = EVENTS * SUBSCRIPTIONS;
const CONCURRENCY = 100; // WEBHOOK_DELIVERY_CONCURRENCY's default, given to both ceilings too
const ROUNDS = 3;

/**
 * S5: 1,000 property.create events fanned out to 10 subscriptions by ONE worker to a receiver
 * answering 204. Each round creates the events through the API while no worker runs (so their
 * dispatch jobs wait in Redis), then starts the worker and times the receiver from the first
 * delivery to the last: the engine's rate, without the API's create rate in it. The ceilings, in
 * the same rounds: BullMQ with a no-op processor over as many jobs, and an undici loop posting
 * as many signed payloads; the goal is against the smaller of the two.
 */
export async function webhookFanout(ctx: BenchContext): Promise<Outcome> {
  const { pool } = await ctx.webhookApi();
  const receiver = await ctx.receiver();
  const account = await seedAccount(ctx.db, 'fanout');
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const created = await postJson(
      pool,
      account.apiKey,
      '/v1/webhooks',
      JSON.stringify({ url: `${receiver}/fanout?subscription=${i}`, eventFilters: ['property.create'] }),
    );
    if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
  }

  const rounds: Array<{ engine: number; noop: number; undici: number; posts: number; unique: number; creates: number }> = [];
  let sampleBody = '';
  let created = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const path = `/fanout`;
    await ctx.resetReceiver();
    const events = await createEvents(pool, account.apiKey, round * EVENTS, EVENTS);
    if (!sampleBody) sampleBody = events.sampleBody;
    const { ok } = events;
    created += ok;
    const { rate: engine, settled } = await timedFanout(ctx, `worker-s5-${round}`, webhookEnv(), path, ok * SUBSCRIPTIONS);

    const noop = await runJson<{ perSecond: number }>(join(__dirname, '..', 'baselines', 'bullmq-noop.js'), {
      redisUrl: BENCH_REDIS_URL,
      prefix: `${BENCH_REDIS_PREFIX}-noop`,
      jobs: DELIVERIES,
      concurrency: CONCURRENCY,
      payload: { deliveryId: 'whd_x', eventId: 'evt_x', subscriptionId: 'sub_x', attempt: 1 },
    });
    const undici = await runJson<{ perSecond: number }>(join(__dirname, '..', 'baselines', 'undici-post.js'), {
      receiver,
      path: `/baseline-${round}`,
      posts: DELIVERIES,
      concurrency: CONCURRENCY,
      body: sampleBody,
    });
    rounds.push({ engine, noop: noop.perSecond, undici: undici.perSecond, posts: settled.posts, unique: settled.unique, creates: ok });
  }

  // Honesty: every create answered 201 and is a row; every delivery row delivered; each received once.
  const { rows } = await ctx.db.query<{ properties: number; delivered: number; other: number }>(
    `SELECT (SELECT count(*)::int FROM properties WHERE account_id = $1) AS properties,
            (SELECT count(*)::int FROM webhook_deliveries WHERE account_id = $1 AND status = 'delivered') AS delivered,
            (SELECT count(*)::int FROM webhook_deliveries WHERE account_id = $1 AND status <> 'delivered') AS other`,
    [account.accountId],
  );
  const received = rounds.reduce((sum, r) => sum + r.unique, 0);
  const doubled = rounds.reduce((sum, r) => sum + r.posts - r.unique, 0);
  const problems = [
    created !== ROUNDS * EVENTS && `${ROUNDS * EVENTS - created} creates were not 201`,
    rows[0].properties !== created && `${rows[0].properties} property rows for ${created} successful creates`,
    rows[0].delivered !== created * SUBSCRIPTIONS && `${rows[0].delivered} delivered rows for ${created * SUBSCRIPTIONS} deliveries`,
    rows[0].other !== 0 && `${rows[0].other} delivery rows not delivered`,
    doubled !== 0 && `${doubled} deliveries received twice`,
    received !== created * SUBSCRIPTIONS && `${received} deliveries received for ${created * SUBSCRIPTIONS}`,
  ].filter(Boolean) as string[];

  const ours = median(rounds.map((r) => r.engine));
  const noop = median(rounds.map((r) => r.noop));
  const undici = median(rounds.map((r) => r.undici));
  const ceiling = Math.min(noop, undici);
  const ratio = ours / ceiling;
  return {
    ours: `${Math.round(ours)} deliveries/s`,
    baseline: `${Math.round(ceiling)}/s (${noop <= undici ? 'BullMQ no-op' : 'undici POSTs'}; other ${Math.round(Math.max(noop, undici))}/s)`,
    ratio: `${ratio.toFixed(2)}x`,
    pass: problems.length === 0 && ratio >= 0.3 && ours >= 2000,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: { rounds, ours, noop, undici, ratio, rows: rows[0] },
  };
}

/** Creates `count` property.create events through the API, 10 requests at a time: how many answered 201, and one as a webhook body. */
export async function createEvents(pool: Pool, apiKey: string, from: number, count: number): Promise<{ ok: number; sampleBody: string }> {
  let next = 0;
  let ok = 0;
  let sampleBody = '';
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < count) {
        const res = await postJson(pool, apiKey, '/v1/properties', propertyBody(from + next++));
        if (res.status === 201) ok++;
        if (!sampleBody) sampleBody = JSON.stringify({ eventName: 'property.create', results: [res.body] });
      }
    }),
  );
  return { ok, sampleBody };
}

/**
 * Starts ONE worker on `env` (the events' dispatch jobs wait in Redis), times the receiver on `path` from
 * the first delivery to the last of `count`, stops the worker: the engine's rate, and what arrived once
 * the worker was gone (anything past the count would be a second POST of a delivery).
 */
export async function timedFanout(
  ctx: BenchContext,
  name: string,
  env: Env,
  path: string,
  count: number,
): Promise<{ rate: number; settled: ReceiverStats }> {
  const worker = ctx.track(startWorker(name, env));
  const stats = await ctx.awaitDeliveries(path, count);
  await worker.stop();
  const settled = await ctx.receiverStats(path);
  return { rate: count / ((stats.lastAt! - stats.firstAt!) / 1000), settled };
}
