import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { BenchContext, Outcome } from '../support/context';
import { BENCH_REDIS_PREFIX, productionEnv } from '../support/env';
import type { LoadResult } from '../support/load';
import { ROUND_SECONDS } from '../support/load';
import { runJson, startApi } from '../support/processes';

const FLOOD_CONNECTIONS = 100;
/** The flood's length: two rounds, the first second left out of the valid client's figures (the address gets blocked in it). */
const FLOOD_SECONDS = 2 * ROUND_SECONDS;
const GOAL_REFUSALS = 2500;
const GOAL_P95_MS = 60;

interface Latencies {
  count: number;
  failed: number;
  p50: number;
  p95: number;
  p99: number;
}

/** One client reading properties back to back on one connection until `until`, timing each answer. */
async function validClient(pool: Pool, apiKey: string, paths: string[], until: number, from = 0): Promise<Latencies> {
  const times: number[] = [];
  let failed = 0;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await pool.request({ method: 'GET', path: paths[times.length % paths.length], headers: { 'x-api-key': apiKey } });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) failed++;
    if (Date.now() >= from) times.push(performance.now() - started);
  }
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
  return { count: sorted.length, failed, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/**
 * S11: 100 connections sending invalid keys from the address of a valid client (127.0.0.1, like
 * every bench process) to GET /v1/properties/{id}, against an API of its own (its own Redis prefix, so
 * the blocked address does not reach the other scenarios). Past the failed-authentication limit the
 * address is blocked and each refusal is a 429 answered by the entry middleware; the figures are the
 * refusals a second and the valid client's latency during the flood, beside the same client alone.
 */
export async function invalidKeyFlood(ctx: BenchContext): Promise<Outcome> {
  const { account, propertyIds } = await ctx.readApi();
  const { origin, process: api } = await startApi('api-s11', productionEnv({ REDIS_PREFIX: `${BENCH_REDIS_PREFIX}-s11` }));
  ctx.track(api);
  const paths = Array.from({ length: 1000 }, () => `/v1/properties/${propertyIds[Math.floor(Math.random() * propertyIds.length)]}`);
  const pool = new Pool(origin, { connections: 1 });
  try {
    // Warm the path, and let the key be seen allowed today (what lets it through a blocked address).
    await validClient(pool, account.apiKey, paths, Date.now() + 2000);
    const quiet = await validClient(pool, account.apiKey, paths, Date.now() + ROUND_SECONDS * 1000);

    const invalidKey = `popk_${randomBytes(32).toString('base64url')}`;
    const started = Date.now();
    const cpuBefore = api.cpuMs();
    const flood = runJson<LoadResult>(join(__dirname, '..', 'support', 'load-child.js'), {
      origin,
      paths,
      headers: { 'x-api-key': invalidKey },
      connections: FLOOD_CONNECTIONS,
      seconds: FLOOD_SECONDS,
    });
    const during = await validClient(pool, account.apiKey, paths, started + FLOOD_SECONDS * 1000, started + 1000);
    const refused = await flood;
    // The API's own CPU per answer through the flood (refusals and the valid client's reads), from /proc.
    const apiCpuMsPerAnswer = (api.cpuMs() - cpuBefore) / (refused.total + during.count);
    const sample = await pool.request({ method: 'GET', path: paths[0], headers: { 'x-api-key': invalidKey } });
    const problem = (await sample.body.json()) as { code?: string };

    const refusalsPerSecond = refused.requestsPerSecond;
    const problems = [
      refused.non2xx !== refused.total && `${refused.total - refused.non2xx} flood requests were served`,
      (refused.errors || refused.timeouts) && `${refused.errors + refused.timeouts} flood requests failed or timed out`,
      (sample.statusCode !== 429 || problem.code !== 'rate_limited') && `an invalid key after the flood got ${sample.statusCode}`,
      (quiet.failed || during.failed) && `the valid client got ${quiet.failed + during.failed} non-200 answers`,
    ].filter(Boolean) as string[];
    return {
      ours: `${Math.round(refusalsPerSecond)} refusals/s; valid client p50 ${during.p50} / p95 ${during.p95} ms during the flood`,
      baseline: `valid client alone: p50 ${quiet.p50} / p95 ${quiet.p95} ms`,
      ratio: '-',
      pass: problems.length === 0 && refusalsPerSecond >= GOAL_REFUSALS && during.p95 < GOAL_P95_MS,
      dishonest: problems.length ? problems.join('; ') : undefined,
      details: {
        refusalsPerSecond,
        apiCpuMsPerAnswer,
        flood: refused,
        valid: { quiet, during },
        floodConnections: FLOOD_CONNECTIONS,
        floodSeconds: FLOOD_SECONDS,
      },
    };
  } finally {
    await pool.close();
    await api.stop();
  }
}
