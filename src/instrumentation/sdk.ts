import { NodeSDK } from '@opentelemetry/sdk-node';
import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

/**
 * The OpenTelemetry Node SDK with the maintained instrumentations (docs/operations.md "Traces"). The
 * SDK reads the standard variables itself: OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT and
 * _PROTOCOL (http/protobuf, http/json, grpc), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_* (spans leave in batches, off the request's path). Traces only:
 * metrics stay Prometheus's (/metrics), logs stay pino's.
 */
export function startSdk(processName: 'api' | 'worker'): NodeSDK {
  const named = !!process.env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : `property-ops-${processName}`,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // The request's span, named from the route Express matched (`GET /v1/properties/:propertyId`) when it
      // ends. No Express or Nest instrumentation: their spans per layer and handler cost on every request
      // and say nothing the request's span and our own do not.
      new HttpInstrumentation({ applyCustomAttributesOnSpan: (span, request) => nameFromRoute(span, request) }),
      // Statements inside a trace only (a pool's idle checks are no one's), text without parameters.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // BullMQ's blocking polls have no parent: they would each be a trace of their own.
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
      // trace_id and span_id in each log line written inside a span; the lines themselves stay pino's.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  return sdk;
}

/** Names a server span from its request's route template (req.route, set by Express once a route matched). */
function nameFromRoute(span: Span, request: unknown): void {
  const { method, route } = request as IncomingMessage & { route?: { path?: unknown } };
  if (typeof route?.path !== 'string') return;
  span.setAttribute('http.route', route.path);
  span.updateName(`${method ?? 'GET'} ${route.path}`);
}
