import type { BenchContext, Outcome } from '../support/context';
import { compare } from '../support/load';

/**
 * S2P: S2's request (GET /v1/properties/{id}, random ids of 10,000) through PgBouncer in transaction
 * mode with DATABASE_POOLER=transaction (unnamed statements), against the same API connected
 * directly with DATABASE_POOLER=none (named prepared statements), in alternating rounds: what
 * running behind a transaction pooler costs. No goal: the figure is recorded (docs/performance.md).
 */
export async function propertyReadThroughPgBouncer(ctx: BenchContext): Promise<Outcome> {
  const direct = await ctx.readApi();
  const pooled = await ctx.pooledReadApi();
  const sample = Array.from({ length: 1000 }, () => direct.propertyIds[Math.floor(Math.random() * direct.propertyIds.length)]);
  const headers = { 'x-api-key': direct.account.apiKey };
  const paths = sample.map((id) => `/v1/properties/${id}`);
  const result = await compare({ origin: pooled.origin, paths, headers }, { origin: direct.origin, paths, headers });
  const ratio = result.ours / result.baseline;
  return {
    ours: `${Math.round(result.ours)} req/s through PgBouncer`,
    baseline: `${Math.round(result.baseline)} req/s direct`,
    ratio: `${ratio.toFixed(2)}x`,
    pass: result.honest,
    dishonest: result.honest ? undefined : 'a response was not 2xx',
    details: { ...result, ratio },
  };
}
