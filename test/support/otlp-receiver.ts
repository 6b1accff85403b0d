import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { waitUntil } from './wait';

/** A span as an OTLP/HTTP JSON export carries it, flattened: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
  startTimeUnixNano: string;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Raw bodies of protobuf exports (http/protobuf), as received. */
  protobufBodies: Buffer[];
  /** Resolves with the spans matching once `count` have arrived. */
  waitFor(match: (span: ReceivedSpan) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * A collector stand-in on 127.0.0.1: it takes OTLP/HTTP trace exports (POST /v1/traces), decodes the
 * JSON ones (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) into spans and keeps protobuf ones raw, and answers 200.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const protobufBodies: Buffer[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if ((req.headers['content-type'] ?? '').includes('json')) {
        const request = JSON.parse(body.toString('utf8')) as {
          resourceSpans?: Array<{
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: Array<{ spans?: Array<Record<string, any>> }>;
          }>;
        };
        for (const resourceSpans of request.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                  traceId: link.traceId,
                  spanId: link.spanId,
                })),
                status: span.status,
                startTimeUnixNano: String(span.startTimeUnixNano),
              });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        protobufBodies.push(body);
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    protobufBodies,
    waitFor: async (match, count = 1, timeoutMs = 20_000) => {
      await waitUntil(async () => spans.filter(match).length >= count, timeoutMs, `${count} span(s) to be exported`);
      return spans.filter(match);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Attributes worth a glance in a rendered trace (ids are left out: they differ in every run). */
const SHOWN = [
  'webhook.event.name',
  'webhook.dispatch.deliveries',
  'webhook.attempt',
  'webhook.outcome',
  'http.response.status_code',
  'db.operation.name',
];

/** One trace as an indented text tree, children in start order, with the service of each span. */
export function renderTrace(spans: ReceivedSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, ReceivedSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => Number(a.startTimeUnixNano) - Number(b.startTimeUnixNano));
    for (const span of list) {
      const shown = SHOWN.filter((key) => span.attributes[key] !== undefined).map((key) => `${key}=${String(span.attributes[key])}`);
      const linked = span.links.length > 0 ? ' (linked to the previous attempt)' : '';
      lines.push(`${'  '.repeat(depth)}${span.name}  [${span.service}]${shown.length ? '  ' + shown.join(' ') : ''}${linked}`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n') + '\n';
}
