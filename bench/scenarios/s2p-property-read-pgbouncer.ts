import type { BenchContext, Outcome } from '../support/context';
import { compare } from '../support/load';

/**
 * S2P: S2's request (GET /v1/properties/{id}, random ids of 10,000) through PgBouncer in transaction
 * mode with DATABASE_POOLER=transaction (unnamed statements), against the same API connected
 * directly with DATABASE_POOLER=none (named prepared statements), in alternating rounds: what
 * running behind a transaction pooler costs. Beside it, the same direct API with DATABASE_POOLER=transaction
 * (the production default, no pooler in between) against none, in its own alternating rounds: what the
 * setting alone costs (unnamed statements), apart from PgBouncer's hop. No goal: the figures are recorded
 * (docs/performance.md, docs/scaling.md).
 */
export async function propertyReadThroughPgBouncer(ctx: BenchContext): Promise<Outcome> {
  const direct = await ctx.readApi();
  const pooled = await ctx.pooledReadApi();
  const sample = Array.from({ length: 1000 }, () => direct.propertyIds[Math.floor(Math.random() * direct.propertyIds.length)]);
  const headers = { 'x-api-key': direct.account.apiKey };
  const paths = sample.map((id) => `/v1/properties/${id}`);
  const result = await compare({ origin: pooled.origin, paths, headers }, { origin: direct.origin, paths, headers });
  const ratio = result.ours / result.baseline;
  const unprepared = await ctx.unpreparedReadApi();
  const setting = await compare({ origin: unprepared.origin, paths, headers }, { origin: direct.origin, paths, headers });
  const settingRatio = setting.ours / setting.baseline;
  const honest = result.honest && setting.honest;
  return {
    ours: `${Math.round(result.ours)} req/s through PgBouncer; direct with DATABASE_POOLER=transaction ${Math.round(setting.ours)} req/s`,
    baseline: `${Math.round(result.baseline)} req/s direct (none); ${Math.round(setting.baseline)} in the setting's rounds`,
    ratio: `${ratio.toFixed(2)}x; the setting alone ${settingRatio.toFixed(2)}x`,
    pass: honest,
    dishonest: honest ? undefined : 'a response was not 2xx',
    details: { ...result, ratio, transactionSettingDirect: { ...setting, ratio: settingRatio } },
  };
}
