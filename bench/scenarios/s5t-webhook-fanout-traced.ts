import { BenchContext, Outcome, postJson } from '../support/context';
import { sampledTracingEnv, seedAccount, tracingEnv, webhookEnv } from '../support/env';
import { median } from '../support/load';
import { createEvents, timedFanout } from './s5-webhook-fanout';

const EVENTS = 1000;
const SUBSCRIPTIONS = 10;
const ROUNDS = 3;

/** How a round's worker traces: not at all, every step (100%), or one event's trace in ten. */
type Mode = 'off' | 'on' | 'sampled';
const MODES: Mode[] = ['off', 'on', 'sampled'];

/**
 * S5T: S5's fan-out (1,000 property.create events × 10 subscriptions, ONE worker, receiver answering
 * 204) with the worker tracing every step at 100% sampling to a local OTLP sink, and at 0.1
 * (`parentbased_traceidratio`), against the same worker with tracing off, in alternating rounds. The
 * events come from an API that traces too (at the round's sampling), so they carry the trace context
 * (and the sampling decision) the traced worker continues (the off worker ignores it).
 */
export async function webhookFanoutTraced(ctx: BenchContext): Promise<Outcome> {
  const sink = await ctx.otlpSink();
  const receiver = await ctx.receiver();
  const { pool } = await ctx.tracedWebhookApi();
  const sampledApi = await ctx.sampledWebhookApi();
  const account = await seedAccount(ctx.db, 'fanout-traced');
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const body = JSON.stringify({ url: `${receiver}/fanout-traced?subscription=${i}`, eventFilters: ['property.create'] });
    const created = await postJson(pool, account.apiKey, '/v1/webhooks', body);
    if (created.status !== 201) throw new Error(`creating a subscription answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const rounds: Array<{ mode: Mode; rate: number; posts: number; unique: number; creates: number }> = [];
  const before = await ctx.otlpSinkStats();
  for (let round = 0; round < ROUNDS * MODES.length; round++) {
    const mode = MODES[round % MODES.length];
    const path = '/fanout-traced';
    await ctx.resetReceiver();
    const { ok } = await createEvents(mode === 'sampled' ? sampledApi.pool : pool, account.apiKey, round * EVENTS, EVENTS);
    const env = mode === 'on' ? webhookEnv(tracingEnv(sink)) : mode === 'sampled' ? webhookEnv(sampledTracingEnv(sink)) : webhookEnv();
    const { rate, settled } = await timedFanout(ctx, `worker-s5t-${round}`, env, path, ok * SUBSCRIPTIONS);
    rounds.push({ mode, rate, posts: settled.posts, unique: settled.unique, creates: ok });
  }
  const exported = await ctx.otlpSinkStats();

  const problems = [
    rounds.some((r) => r.creates !== EVENTS) && 'a create was not 201',
    rounds.some((r) => r.posts !== r.unique) && 'a delivery was received twice',
    rounds.some((r) => r.unique !== r.creates * SUBSCRIPTIONS) && 'a delivery was not received',
    exported.exports === before.exports && 'nothing was exported',
  ].filter(Boolean) as string[];
  const rateOf = (mode: Mode) => median(rounds.filter((r) => r.mode === mode).map((r) => r.rate));
  const [on, off, sampled] = [rateOf('on'), rateOf('off'), rateOf('sampled')];
  const ratio = on / off;
  const sampledRatio = sampled / off;
  return {
    ours: `${Math.round(on)} deliveries/s traced; ${Math.round(sampled)}/s at 0.1 sampling`,
    baseline: `${Math.round(off)} deliveries/s off`,
    ratio: `${ratio.toFixed(2)}x; 0.1: ${sampledRatio.toFixed(2)}x`,
    pass: problems.length === 0 && ratio >= 0.8 && sampledRatio >= 0.95,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: {
      rounds,
      on,
      off,
      sampled,
      ratio,
      sampledRatio,
      exports: exported.exports - before.exports,
      exportedBytes: exported.bytes - before.bytes,
    },
  };
}
