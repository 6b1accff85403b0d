import { tracingOn } from '../../config/tracing';

export type { SpanAttributes, SpanHandle, SpanOptions, Tracing } from './tracing.types';
import type { SpanHandle, Tracing } from './tracing.types';

const NO_SPAN: SpanHandle = {
  traceparent: null,
  set: () => undefined,
  run: (fn) => fn(),
  runUntraced: (fn) => fn(),
  end: () => undefined,
};

export const NO_TRACING: Tracing = {
  enabled: false,
  activeTraceparent: () => null,
  start: () => NO_SPAN,
  inSpan: (_name, _options, fn) => fn(NO_SPAN),
  recordSpan: () => undefined,
};

/** The process's tracing: the OpenTelemetry one only when on (required lazily, so off loads nothing). */
export const tracing: Tracing = tracingOn()
  ? // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./otel-tracing') as typeof import('./otel-tracing')).otelTracing()
  : NO_TRACING;

let telemetry: import('bullmq').Telemetry | undefined;

/** BullMQ's `telemetry` option for a queue or worker (one per process): undefined when off (BullMQ then traces nothing). */
export function queueTelemetry(): import('bullmq').Telemetry | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (tracingOn()) telemetry ??= (require('./otel-tracing') as typeof import('./otel-tracing')).otelQueueTelemetry();
  return telemetry;
}
