import type { BenchContext, Outcome } from '../support/context';
import { compare } from '../support/load';

/** S1: GET /v1/health against bare Express doing the same SELECT 1 and Redis PING. */
export async function health(ctx: BenchContext): Promise<Outcome> {
  const api = await ctx.readApi();
  const raw = await ctx.rawServer();
  const result = await compare({ origin: api.origin, paths: ['/v1/health'] }, { origin: raw, paths: ['/health'] }, api.process);
  const ratio = result.ours / result.baseline;
  return {
    ours: `${Math.round(result.ours)} req/s`,
    baseline: `${Math.round(result.baseline)} req/s`,
    ratio: `${ratio.toFixed(2)}x`,
    pass: result.honest && ratio >= 0.85,
    dishonest: result.honest ? undefined : 'a response was not 2xx',
    details: { ...result, ratio },
  };
}
