import type { Pool } from 'undici';
import { propertyBody, seedAccount, SeededAccount, webhookEnv } from '../support/env';
import { BenchContext, Outcome, postJson } from '../support/context';
import { startWorker } from '../support/processes';

const FAST = 2000;
const SLOW = 1000;
const SLOW_MS = 20;
const MIX_EVENTS = 1000;
const MIX_SUBSCRIPTIONS = 10;

/**
 * S10, ordered endpoints (issue 31), side by side in one run: (a) one ordered subscription to a receiver
 * answering at once, (b) to one answering in 20 ms, each timed at the receiver from the first delivery to
 * the last with the events created while no worker runs (the engine's pace, not the API's); (c) S5's
 * fan-out with one ordered subscription among the ten, the nine unordered ones' rate against the same
 * fan-out with none ordered. Honesty: every delivery once, and the ordered ones arrived in feed order.
 */
export async function orderedWebhooks(ctx: BenchContext): Promise<Outcome> {
  const { pool } = await ctx.webhookApi();
  const receiver = await ctx.receiver();
  const problems: string[] = [];

  const fast = await orderedRun(ctx, pool, receiver, 'fast', FAST, 0, problems);
  const slow = await orderedRun(ctx, pool, receiver, 'slow', SLOW, SLOW_MS, problems);
  const plain = await fanout(ctx, pool, receiver, 'plain', false, problems);
  const mixed = await fanout(ctx, pool, receiver, 'mixed', true, problems);

  const fastRate = FAST / fast.seconds;
  const slowEngineMs = (slow.seconds * 1000) / SLOW - SLOW_MS;
  const mixRatio = mixed.unorderedRate / plain.unorderedRate;
  return {
    ours: `${Math.round(fastRate)} ordered deliveries/s; 20 ms receiver: ${slow.seconds.toFixed(1)} s per 1,000 (+${slowEngineMs.toFixed(1)} ms each)`,
    baseline: `S5 unordered: ${Math.round(plain.unorderedRate)}/s without, ${Math.round(mixed.unorderedRate)}/s beside one ordered`,
    ratio: `${mixRatio.toFixed(2)}x`,
    pass: problems.length === 0 && fastRate >= 500 && slow.seconds <= 23 && mixRatio >= 0.9,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: { fast, slow, plain, mixed, fastRate, slowEngineMs, mixRatio },
  };
}

/** Creates `count` properties (so many property.create events), 10 requests at a time; the number answered 201. */
async function createProperties(pool: Pool, account: SeededAccount, count: number, offset: number): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < count) {
        const res = await postJson(pool, account.apiKey, '/v1/properties', propertyBody(offset + next++));
        if (res.status === 201) ok++;
      }
    }),
  );
  return ok;
}

async function subscribe(pool: Pool, account: SeededAccount, url: string, ordered: boolean): Promise<void> {
  const created = await postJson(pool, account.apiKey, '/v1/webhooks', JSON.stringify({ url, eventFilters: ['property.create'], ordered }));
  if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
}

/** One ordered subscription, `count` events queued, then a worker: seconds from the first arrival to the last. */
async function orderedRun(
  ctx: BenchContext,
  pool: Pool,
  receiver: string,
  name: string,
  count: number,
  delayMs: number,
  problems: string[],
): Promise<{ seconds: number; posts: number; unique: number }> {
  const account = await seedAccount(ctx.db, `s10-${name}`);
  const path = `/s10-${name}`;
  await subscribe(pool, account, `${receiver}${path}?delayMs=${delayMs}`, true);
  await ctx.resetReceiver();
  const ok = await createProperties(pool, account, count, 0);
  const worker = ctx.track(startWorker(`worker-s10-${name}`, webhookEnv()));
  const stats = await ctx.awaitDeliveries(path, ok);
  await worker.stop();
  const settled = await ctx.receiverStats(path, true);
  if (ok !== count) problems.push(`${name}: ${count - ok} creates were not 201`);
  if (settled.posts !== settled.unique) problems.push(`${name}: ${settled.posts - settled.unique} deliveries received twice`);
  await checkOrder(ctx, account, settled.arrivals ?? {}, name, problems);
  return { seconds: (stats.lastAt! - stats.firstAt!) / 1000, posts: settled.posts, unique: settled.unique };
}

/** The receiver's arrival times against the feed's order (GET /v1/events: writing transaction, then id). */
async function checkOrder(ctx: BenchContext, account: SeededAccount, arrivals: Record<string, number>, name: string, problems: string[]) {
  const { rows } = await ctx.db.query<{ pid: string }>(
    `SELECT results -> 0 ->> 'propertyId' AS pid FROM events WHERE account_id = $1 AND event_name = 'property.create' ORDER BY tx_id, id`,
    [account.accountId],
  );
  let last = -Infinity;
  let out = 0;
  for (const { pid } of rows) {
    const at = arrivals[pid];
    if (at === undefined) continue;
    if (at < last) out++;
    last = Math.max(last, at);
  }
  if (out > 0) problems.push(`${name}: ${out} ordered deliveries arrived before one earlier in the feed`);
}

/** S5's fan-out (1,000 events × 10 subscriptions, one worker), one of them ordered or none: the unordered ones' deliveries/s. */
async function fanout(
  ctx: BenchContext,
  pool: Pool,
  receiver: string,
  name: string,
  withOrdered: boolean,
  problems: string[],
): Promise<{ unorderedRate: number; orderedSeconds: number | null }> {
  const account = await seedAccount(ctx.db, `s10-${name}`);
  const path = `/s10-${name}`;
  const orderedPath = `/s10-${name}-ordered`;
  for (let i = 0; i < MIX_SUBSCRIPTIONS; i++) {
    const ordered = withOrdered && i === 0;
    await subscribe(pool, account, `${receiver}${ordered ? orderedPath : path}?subscription=${i}`, ordered);
  }
  const unordered = withOrdered ? MIX_SUBSCRIPTIONS - 1 : MIX_SUBSCRIPTIONS;
  await ctx.resetReceiver();
  const ok = await createProperties(pool, account, MIX_EVENTS, 0);
  const worker = ctx.track(startWorker(`worker-s10-${name}`, webhookEnv()));
  const stats = await ctx.awaitDeliveries(path, ok * unordered);
  const ordered = withOrdered ? await ctx.awaitDeliveries(orderedPath, ok) : null;
  await worker.stop();
  const settled = await ctx.receiverStats(path);
  if (settled.posts !== settled.unique) problems.push(`${name}: ${settled.posts - settled.unique} deliveries received twice`);
  if (ordered) {
    const arrivals = await ctx.receiverStats(orderedPath, true);
    await checkOrder(ctx, account, arrivals.arrivals ?? {}, name, problems);
  }
  return {
    unorderedRate: (ok * unordered) / ((stats.lastAt! - stats.firstAt!) / 1000),
    orderedSeconds: ordered ? (ordered.lastAt! - ordered.firstAt!) / 1000 : null,
  };
}
