import { BenchContext, Outcome, postJson } from '../support/context';
import { seedAccount, tracingEnv, webhookEnv } from '../support/env';
import { median } from '../support/load';
import { createEvents, timedFanout } from './s5-webhook-fanout';

const EVENTS = 1000;
const SUBSCRIPTIONS = 10;
const ROUNDS = 3;

/**
 * S5T: S5's fan-out (1,000 property.create events × 10 subscriptions, ONE worker, receiver answering
 * 204) with the worker tracing every step at 100% sampling to a local OTLP sink, against the same
 * worker with tracing off, in alternating rounds. The events come from an API that traces too, so
 * they carry the trace context the traced worker continues (the off worker ignores it).
 */
export async function webhookFanoutTraced(ctx: BenchContext): Promise<Outcome> {
  const sink = await ctx.otlpSink();
  const receiver = await ctx.receiver();
  const { pool } = await ctx.tracedWebhookApi();
  const account = await seedAccount(ctx.db, 'fanout-traced');
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const body = JSON.stringify({ url: `${receiver}/fanout-traced?subscription=${i}`, eventFilters: ['property.create'] });
    const created = await postJson(pool, account.apiKey, '/v1/webhooks', body);
    if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const rounds: Array<{ traced: boolean; rate: number; posts: number; unique: number; creates: number }> = [];
  const before = await ctx.otlpSinkStats();
  for (let round = 0; round < ROUNDS * 2; round++) {
    const traced = round % 2 === 1;
    const path = '/fanout-traced';
    await ctx.resetReceiver();
    const { ok } = await createEvents(pool, account.apiKey, round * EVENTS, EVENTS);
    const env = traced ? webhookEnv(tracingEnv(sink)) : webhookEnv();
    const { rate, settled } = await timedFanout(ctx, `worker-s5t-${round}`, env, path, ok * SUBSCRIPTIONS);
    rounds.push({ traced, rate, posts: settled.posts, unique: settled.unique, creates: ok });
  }
  const exported = await ctx.otlpSinkStats();

  const problems = [
    rounds.some((r) => r.creates !== EVENTS) && 'a create was not 201',
    rounds.some((r) => r.posts !== r.unique) && 'a delivery was received twice',
    rounds.some((r) => r.unique !== r.creates * SUBSCRIPTIONS) && 'a delivery was not received',
    exported.exports === before.exports && 'nothing was exported',
  ].filter(Boolean) as string[];
  const on = median(rounds.filter((r) => r.traced).map((r) => r.rate));
  const off = median(rounds.filter((r) => !r.traced).map((r) => r.rate));
  const ratio = on / off;
  return {
    ours: `${Math.round(on)} deliveries/s traced`,
    baseline: `${Math.round(off)} deliveries/s off`,
    ratio: `${ratio.toFixed(2)}x`,
    pass: problems.length === 0 && ratio >= 0.8,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: { rounds, on, off, ratio, exports: exported.exports - before.exports, exportedBytes: exported.bytes - before.bytes },
  };
}
