import { Pool } from 'undici';
import { propertyBody, seedAccount, webhookEnv } from '../support/env';
import { BenchContext, Outcome, postJson } from '../support/context';
import { ROUND_SECONDS } from '../support/load';
import { startWorker } from '../support/processes';

const RATES = [50, 200];

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * S6: from an event's commit to its first delivery attempt arriving at the receiver, at a steady
 * 50 and then 200 events/s (property creates sent on a fixed schedule, not waiting for each other).
 * The commit time is when the create's 201 reached the bench (the API answers after committing, so
 * this is a few hundred microseconds after the commit: the figures are slightly flattering by that).
 * The first tenth of each rate is warm-up and left out.
 */
export async function deliveryLatency(ctx: BenchContext): Promise<Outcome> {
  const { origin } = await ctx.webhookApi();
  const receiver = await ctx.receiver();
  const account = await seedAccount(ctx.db, 'latency');
  const pool = new Pool(origin, { connections: 50 });
  const worker = ctx.track(startWorker('worker-s6', webhookEnv()));
  const perRate: Record<string, { p50: number; p95: number; p99: number; events: number }> = {};
  const problems: string[] = [];
  try {
    for (const rate of RATES) {
      const path = `/latency-${rate}`;
      const sub = await postJson(
        pool,
        account.apiKey,
        '/v1/webhooks',
        JSON.stringify({ url: `${receiver}${path}`, eventFilters: ['property.create'] }),
      );
      if (sub.status !== 201) throw new Error(`creating a subscription answered ${sub.status}`);
      // One event first, so the worker is up and the subscription known before timing starts.
      await postJson(pool, account.apiKey, '/v1/properties', propertyBody(-rate));
      await ctx.awaitDeliveries(path, 1, 60_000);

      const events = rate * ROUND_SECONDS * 2;
      const committed = new Map<string, number>();
      const start = performance.now();
      const sends: Promise<void>[] = [];
      let failed = 0;
      for (let i = 0; i < events; i++) {
        const wait = start + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sends.push(
          postJson(pool, account.apiKey, '/v1/properties', propertyBody(rate * 100_000 + i)).then((res) => {
            if (res.status === 201 && res.body.propertyId) committed.set(res.body.propertyId, performance.timeOrigin + performance.now());
            else failed++;
          }),
        );
      }
      await Promise.all(sends);
      const stats = await ctx.awaitDeliveries(path, committed.size + 1, 60_000);
      const arrivals = (await ctx.receiverStats(path, true)).arrivals ?? {};
      const ordered = [...committed.entries()];
      const latencies = ordered
        .slice(Math.floor(ordered.length / 10))
        .map(([propertyId, at]) => arrivals[propertyId] - at)
        .sort((a, b) => a - b);
      perRate[rate] = { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), p99: percentile(latencies, 0.99), events };
      if (failed) problems.push(`${failed} creates at ${rate}/s were not 201`);
      if (stats.posts !== stats.unique) problems.push(`${stats.posts - stats.unique} deliveries at ${rate}/s received twice`);
      if (latencies.some((l) => !Number.isFinite(l))) problems.push(`an event at ${rate}/s was never delivered`);
    }
  } finally {
    await worker.stop();
    await pool.close();
  }
  const fmt = (r: { p95: number; p99: number }) => `p95 ${r.p95.toFixed(1)} / p99 ${r.p99.toFixed(1)} ms`;
  const pass = problems.length === 0 && RATES.every((rate) => perRate[rate].p95 < 20 && perRate[rate].p99 < 50);
  return {
    ours: RATES.map((rate) => `${rate}/s: ${fmt(perRate[rate])}`).join('; '),
    baseline: '-',
    ratio: '-',
    pass,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: { perRate },
  };
}
