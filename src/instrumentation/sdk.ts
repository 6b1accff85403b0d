import { NodeSDK } from '@opentelemetry/sdk-node';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
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
      new HttpInstrumentation(),
      // No span of its own (Nest's handler span says the same, and each costs on every request): it is
      // here for the route template, which names the request's span (`GET /v1/properties/:propertyId`).
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.REQUEST_HANDLER, ExpressLayerType.ROUTER],
      }),
      new NestInstrumentation(),
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
