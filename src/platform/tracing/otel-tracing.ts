import {
  Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  Link,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Telemetry } from 'bullmq';
import type { SpanAttributes, SpanHandle, SpanOptions, Tracing } from './tracing.types';

/** The tracer of our own spans (the instrumentations have theirs). */
const TRACER_NAME = 'property-ops';

/**
 * Stored trace contexts are W3C traceparents whatever OTEL_PROPAGATORS says: they are our own columns
 * and job fields, not headers of someone else's protocol.
 */
const w3c = new W3CTraceContextPropagator();

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER } as const;

/** The traceparent's context, or undefined for a missing or malformed one. */
function contextOf(traceparent: string | null | undefined): Context | undefined {
  if (!traceparent) return undefined;
  const extracted = w3c.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

function traceparentOf(span: Span | undefined): string | null {
  if (!span) return null;
  const carrier: { traceparent?: string } = {};
  w3c.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent ?? null;
}

function linksOf(traceparents: SpanOptions['links']): Link[] | undefined {
  if (!traceparents) return undefined;
  const links: Link[] = [];
  for (const traceparent of traceparents) {
    const spanContext = traceparent ? trace.getSpanContext(contextOf(traceparent) ?? ROOT_CONTEXT) : undefined;
    if (spanContext) links.push({ context: spanContext });
  }
  return links.length > 0 ? links : undefined;
}

class OtelSpan implements SpanHandle {
  private tp: string | null | undefined;

  constructor(private readonly span: Span) {}

  get traceparent(): string | null {
    return (this.tp ??= traceparentOf(this.span));
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes as Record<string, string | number | boolean>);
  }

  run<T>(fn: () => T): T {
    return context.with(trace.setSpan(context.active(), this.span), fn);
  }

  runUntraced<T>(fn: () => T): T {
    return context.with(suppressTracing(trace.setSpan(context.active(), this.span)), fn);
  }

  end(error?: unknown): void {
    if (error !== undefined)
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    this.span.end();
  }
}

function startSpan(name: string, options: SpanOptions = {}): Span {
  const parent = contextOf(options.parent) ?? context.active();
  return trace.getTracer(TRACER_NAME).startSpan(
    name,
    {
      kind: KINDS[options.kind ?? 'internal'],
      attributes: options.attributes as Record<string, string | number | boolean> | undefined,
      links: linksOf(options.links),
      startTime: options.startTime,
    },
    parent,
  );
}

/** Tracing through the OpenTelemetry API (the SDK behind it is the bootstrap's: src/instrumentation/). */
export function otelTracing(): Tracing {
  return {
    enabled: true,
    activeTraceparent: () => traceparentOf(trace.getSpan(context.active())),
    start: (name, options) => new OtelSpan(startSpan(name, options)),
    inSpan: async (name, options, fn) => {
      const span = new OtelSpan(startSpan(name, options));
      try {
        const result = await span.run(() => fn(span));
        span.end();
        return result;
      } catch (error) {
        span.end(error);
        throw error;
      }
    },
    recordSpan: (name, options) => startSpan(name, options).end(options.endTime),
  };
}

/** BullMQ's own telemetry (its add, process … spans, the trace context carried inside each job). */
export function otelQueueTelemetry(): Telemetry {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  return new BullMQOtel(TRACER_NAME);
}
