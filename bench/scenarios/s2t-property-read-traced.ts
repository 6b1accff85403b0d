import type { BenchContext, Outcome } from '../support/context';
import { compare } from '../support/load';

/**
 * S2T: S2's request (GET /v1/properties/{id}, random ids of 10,000) to an API tracing every request
 * (100% sampling, exported in batches to a local OTLP sink), against S2's API with tracing off, same
 * data, alternating rounds; then the same with one request in ten sampled
 * (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`, 0.1). Off is also the build without instrumentation:
 * with no OTEL_* variable nothing of OpenTelemetry is loaded and S2's path runs no line of tracing code
 * (docs/performance.md).
 */
export async function propertyReadTraced(ctx: BenchContext): Promise<Outcome> {
  const off = await ctx.readApi();
  const on = await ctx.tracedReadApi();
  const sampled = await ctx.sampledReadApi();
  const sample = Array.from({ length: 1000 }, () => off.propertyIds[Math.floor(Math.random() * off.propertyIds.length)]);
  const headers = { 'x-api-key': off.account.apiKey };
  const paths = sample.map((id) => `/v1/properties/${id}`);
  const before = await ctx.otlpSinkStats();
  const result = await compare({ origin: on.origin, paths, headers }, { origin: off.origin, paths, headers });
  const exported = await ctx.otlpSinkStats();
  const tenth = await compare({ origin: sampled.origin, paths, headers }, { origin: off.origin, paths, headers });
  const ratio = result.ours / result.baseline;
  const sampledRatio = tenth.ours / tenth.baseline;
  // Honest only if the traced API really exported what it traced.
  const silent = exported.exports === before.exports;
  const honest = result.honest && tenth.honest;
  return {
    ours: `${Math.round(result.ours)} req/s traced; ${Math.round(tenth.ours)} req/s at 0.1 sampling`,
    baseline: `${Math.round(result.baseline)} and ${Math.round(tenth.baseline)} req/s off`,
    ratio: `${ratio.toFixed(2)}x; 0.1: ${sampledRatio.toFixed(2)}x`,
    pass: honest && !silent && ratio >= 0.8 && sampledRatio >= 0.95,
    dishonest: !honest ? 'a response was not 2xx' : silent ? 'the traced API exported nothing' : undefined,
    details: {
      ...result,
      ratio,
      exports: exported.exports - before.exports,
      exportedBytes: exported.bytes - before.bytes,
      sampled: { ...tenth, ratio: sampledRatio },
    },
  };
}
