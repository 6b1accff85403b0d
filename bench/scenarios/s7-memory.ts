import { join } from 'node:path';
import { productionEnv } from '../support/env';
import type { BenchContext, Outcome } from '../support/context';
import type { LoadResult } from '../support/load';
import { CONNECTIONS, median } from '../support/load';
import { runJson, startApi, startWorker } from '../support/processes';

/** The soak's length (s); BENCH_SOAK_SECONDS shortens it while developing. */
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
const LIMIT_MB = 150;
/** The API at rest, before any request (issue 33). */
const API_IDLE_LIMIT_MB = 120;

/**
 * S7: resident memory of a fresh API and worker (production settings), idle and through a soak at
 * 70% of S2's throughput on the property read. Growth is judged from the second fifth of the soak
 * (after pools, caches and the JIT have warmed) to the last, so it shows a leak rather than the
 * warm-up; the event-loop delay p99 is the API's over the whole soak.
 */
export async function memory(ctx: BenchContext): Promise<Outcome> {
  const s2 = ctx.figure('S2.ours', 'S2', (details) => details.ours);
  if (!s2) throw new Error('S7 runs at 70% of S2’s throughput: run S2 first (npm run bench -- S2 S7)');
  const { propertyIds, account } = await ctx.readApi();
  await ctx.stopReadApi();
  const { origin, process: api } = await startApi('api-s7', productionEnv());
  const worker = startWorker('worker-s7', productionEnv());
  ctx.track(api);
  ctx.track(worker);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idle = { api: api.probe().rssMb, worker: worker.probe().rssMb };
  api.resetProbe();
  worker.resetProbe();

  const rate = Math.round(s2 * 0.7);
  const paths = Array.from({ length: 1000 }, () => `/v1/properties/${propertyIds[Math.floor(Math.random() * propertyIds.length)]}`);
  const soak = runJson<LoadResult>(join(__dirname, '..', 'support', 'load-child.js'), {
    origin,
    paths,
    headers: { 'x-api-key': account.apiKey },
    connections: CONNECTIONS,
    seconds: SOAK_SECONDS,
    overallRate: rate,
  });
  // RSS swings with the garbage collector (V8 grows the heap lazily between major collections), so
  // both ends are medians of samples taken every two seconds: the second fifth of the soak (warm)
  // against the last fifth (end).
  const samples: Array<{ at: number; api: number; worker: number }> = [];
  let soaking = true;
  const done = soak.finally(() => (soaking = false));
  const started = Date.now();
  while (soaking) {
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 2000))]);
    samples.push({ at: (Date.now() - started) / 1000 / SOAK_SECONDS, api: api.probe().rssMb, worker: worker.probe().rssMb });
  }
  const load = await soak;
  const window = (from: number, to: number) => samples.filter((s) => s.at >= from && s.at < to);
  const medianOf = (list: typeof samples, key: 'api' | 'worker') => median(list.map((s) => s[key]));
  const warmSamples = window(0.2, 0.4);
  const endSamples = window(0.8, 1.01);
  const warm = { api: medianOf(warmSamples, 'api'), worker: medianOf(warmSamples, 'worker') };
  const end = { api: medianOf(endSamples, 'api'), worker: medianOf(endSamples, 'worker') };
  const peak = { api: Math.max(...samples.map((s) => s.api)), worker: Math.max(...samples.map((s) => s.worker)) };
  const loop = { api: api.probe().loopDelayMs, worker: worker.probe().loopDelayMs };
  await api.stop();
  await worker.stop();

  const growth = { api: (end.api - warm.api) / warm.api, worker: (end.worker - warm.worker) / warm.worker };
  const problems = [
    (load.non2xx || load.errors || load.timeouts) && `${load.non2xx + load.errors + load.timeouts} failed requests`,
    load.requestsPerSecond < rate * 0.95 && `the soak reached ${Math.round(load.requestsPerSecond)} of ${rate} req/s`,
  ].filter(Boolean) as string[];
  const pass =
    problems.length === 0 &&
    idle.api < API_IDLE_LIMIT_MB &&
    end.api < LIMIT_MB &&
    end.worker < LIMIT_MB &&
    growth.api < 0.1 &&
    growth.worker < 0.1 &&
    loop.api.p99 < 20;
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  return {
    ours: `API ${idle.api} MB idle, ${end.api} MB loaded (peak ${peak.api}, growth ${pct(growth.api)}); worker ${idle.worker} → ${end.worker} MB (${pct(growth.worker)}); API loop p99 ${loop.api.p99} ms`,
    baseline: '-',
    ratio: '-',
    pass,
    dishonest: problems.length ? problems.join('; ') : undefined,
    details: { rate, soakSeconds: SOAK_SECONDS, idle, warm, end, peak, growth, loopDelayMs: loop, load, samples },
  };
}
