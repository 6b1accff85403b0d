// What our spans look like, apart from both implementations (NO_TRACING and the OpenTelemetry one),
// so the lazily required one imports its shape without importing the file that requires it.

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
