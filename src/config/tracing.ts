/**
 * Whether this process traces (OpenTelemetry, docs/operations.md "Traces"), read from the environment once.
 * On only when OTEL_TRACES_EXPORTER names an exporter other than `none` (and OTEL_SDK_DISABLED is not
 * true): the SDK's own default would be `otlp`, but a process started with no OTEL_* variable at all must
 * load nothing of OpenTelemetry. Everything else (endpoint, protocol, service name, resource attributes,
 * sampler) the SDK reads from the standard variables itself.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return exporters.length > 0 && !exporters.includes('none');
}

let enabled: boolean | undefined;

/**
 * This process's answer, read once (after the bootstrap has read `.env`): the bootstrap and the
 * facade agree on it.
 */
export function tracingOn(): boolean {
  return (enabled ??= tracingEnabled());
}
