import { tracingOn } from '../../config/tracing';

/** Span attribute values we set: undefined ones are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  /** W3C traceparent to continue (an outbox row's); absent or null: the active context's span, if any. */
  parent?: string | null;
  /** Spans this one follows from without being their child (a retry's previous attempt), as traceparents. */
  links?: Array<string | null | undefined>;
  attributes?: SpanAttributes;
  kind?: 'internal' | 'client' | 'consumer';
  /** When it began (performance.now() or epoch ms), if before the call. */
  startTime?: number;
}

/** A span of ours, started; a no-op when tracing is off. */
export interface SpanHandle {
  /** Its W3C traceparent (null when off). */
  readonly traceparent: string | null;
  set(attributes: SpanAttributes): void;
  /** Runs `fn` with this span as the active one (what `pg`, `ioredis` … do inside is its child). */
  run<T>(fn: () => T): T;
  /**
   * Runs `fn` with this span active but the instrumentations below it silent: a webhook POST, which this
   * span already describes, and which must not carry a traceparent the receiver did not ask for.
   */
  runUntraced<T>(fn: () => T): T;
  /** Ends it; an error marks it failed (its message only, never a stack or a body). */
  end(error?: unknown): void;
}

/**
 * Our own spans (the webhook engine's steps, periodic tasks), through @opentelemetry/api only. With
 * tracing off this is NO_TRACING, and nothing of OpenTelemetry is loaded at all (the bootstrap is not
 * required either: src/instrumentation/).
 */
export interface Tracing {
  readonly enabled: boolean;
  /** The active span's traceparent, for an outbox row (null when off or outside any span). */
  activeTraceparent(): string | null;
  start(name: string, options?: SpanOptions): SpanHandle;
  /** `fn` inside a span that ends when it settles. */
  inSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** A span of a step already over (a batch's claim statement, seen from each delivery's trace). */
  recordSpan(name: string, options: SpanOptions & { startTime: number; endTime: number }): void;
}

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
