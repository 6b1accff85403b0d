import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load-child';
import { runJson } from './processes';

export type { LoadResult, LoadSpec };

const LOAD_CHILD = join(__dirname, 'load-child.js');

/** Round length (s); BENCH_ROUND_SECONDS shortens it while developing. */
export const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
export const CONNECTIONS = 10;
const WARM_UP_SECONDS = Math.min(3, ROUND_SECONDS);

export function load(spec: LoadSpec): Promise<LoadResult> {
  return runJson<LoadResult>(LOAD_CHILD, spec);
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface Comparison {
  ours: number;
  baseline: number;
  rounds: { ours: LoadResult[]; baseline: LoadResult[] };
  /** Every response of every round (warm-ups included) was a 2xx: otherwise the figures mean nothing. */
  honest: boolean;
  /** The API process's own CPU per request (ms, median of its rounds, from /proc), when its process was given. */
  apiCpuMsPerRequest?: number;
}

/**
 * A warm-up of each side, then three alternating rounds (ours, baseline, ours, ...), so drift
 * in machine load hits both alike; each side's figure is the median of its three rounds.
 */
export async function compare(
  ours: Omit<LoadSpec, 'seconds' | 'connections'>,
  baseline: Omit<LoadSpec, 'seconds' | 'connections'>,
  api?: { cpuMs(): number },
) {
  const warm = [
    await load({ ...ours, connections: CONNECTIONS, seconds: WARM_UP_SECONDS }),
    await load({ ...baseline, connections: CONNECTIONS, seconds: WARM_UP_SECONDS }),
  ];
  const rounds: Comparison['rounds'] = { ours: [], baseline: [] };
  const cpu: number[] = [];
  for (let round = 0; round < 3; round++) {
    const before = api?.cpuMs() ?? 0;
    rounds.ours.push(await load({ ...ours, connections: CONNECTIONS, seconds: ROUND_SECONDS }));
    if (api) cpu.push((api.cpuMs() - before) / rounds.ours[round].total);
    rounds.baseline.push(await load({ ...baseline, connections: CONNECTIONS, seconds: ROUND_SECONDS }));
  }
  const all = [...warm, ...rounds.ours, ...rounds.baseline];
  return {
    ours: median(rounds.ours.map((r) => r.requestsPerSecond)),
    baseline: median(rounds.baseline.map((r) => r.requestsPerSecond)),
    rounds,
    honest: all.every((r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0 && r.total > 0),
    apiCpuMsPerRequest: api ? median(cpu) : undefined,
  } satisfies Comparison;
}
