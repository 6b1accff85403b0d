import { config as readDotEnv } from 'dotenv';
import { tracingOn } from '../config/tracing';

/** The started SDK (only when tracing is on). */
let sdk: { shutdown(): Promise<void> } | undefined;

/** How long a stopping process waits for its last spans to be exported. */
const FLUSH_WITHIN_MS = 2_000;

/**
 * Starts OpenTelemetry for this process when tracing is on (config/tracing.ts), before anything it
 * instruments is loaded: called by the first import of main.ts and worker.ts. Off, it requires nothing.
 */
export function preload(processName: 'api' | 'worker'): void {
  // OTEL_* may come from .env like every other variable (the config reads it again later: no override).
  readDotEnv({ quiet: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (tracingOn()) sdk = (require('./sdk') as typeof import('./sdk')).startSdk(processName);
}

/** Exports the spans still buffered and stops the SDK (bounded: a collector that is down never holds up an exit). */
export async function stopTracing(): Promise<void> {
  if (!sdk) return;
  const stopping = sdk;
  sdk = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_WITHIN_MS).unref())),
  ]);
  clearTimeout(timer);
}
