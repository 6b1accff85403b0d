import type { BenchContext, Outcome } from '../support/context';
import { compare } from '../support/load';

/**
 * S2: GET /v1/properties/{id} over random ids of 10,000 seeded properties, against bare Express +
 * pg doing the same key lookup (and, beside it, the same rate-limit script on Redis) and property read
 * as prepared statements.
 */
export async function propertyRead(ctx: BenchContext): Promise<Outcome> {
  const api = await ctx.readApi();
  const raw = await ctx.rawServer();
  const sample = Array.from({ length: 1000 }, () => api.propertyIds[Math.floor(Math.random() * api.propertyIds.length)]);
  const headers = { 'x-api-key': api.account.apiKey };
  const result = await compare(
    { origin: api.origin, paths: sample.map((id) => `/v1/properties/${id}`), headers },
    { origin: raw, paths: sample.map((id) => `/v1/properties/${id}`), headers },
    api.process,
  );
  const ratio = result.ours / result.baseline;
  ctx.figures.set('S2.ours', result.ours);
  return {
    ours: `${Math.round(result.ours)} req/s`,
    baseline: `${Math.round(result.baseline)} req/s`,
    ratio: `${ratio.toFixed(2)}x`,
    pass: result.honest && ratio >= 0.85,
    dishonest: result.honest ? undefined : 'a response was not 2xx',
    details: { ...result, ratio },
  };
}
