import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientFor, createAccount, startApp, TestAccount, TestApp, ApiClient } from '../support/app';
import { spawnApiProcess, ApiProcess } from '../support/api-process';
import { validBooking } from '../support/bookings';
import { renderTrace, startOtlpReceiver, OtlpReceiver, ReceivedSpan } from '../support/otlp-receiver';
import { freePort } from '../support/private-services';
import { createProperty } from '../support/properties';
import { dropRedisPrefix, runRedis, TEST_RUN_ID } from '../support/test-env';
import { QUICK_RETRIES } from '../support/webhook-engine';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/wait';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';

/**
 * Traces end to end (issue 32): the built API and worker as child processes export to an OTLP/HTTP
 * receiver this file starts on 127.0.0.1. One booking create is one trace: the request span (named by
 * its route template), its transaction's statements, the event's dispatch, each subscription's claim
 * and attempt (the receiver's traceparent is the attempt's span when the subscription asks), and a
 * retry's attempt linked to the failed one. With no OTEL_* variable nothing of OpenTelemetry is loaded.
 */
const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('traces: OpenTelemetry from the request to each webhook attempt', () => {
  const prefix = `pop-test-${TEST_RUN_ID}-tracing`;
  const base = { REDIS_PREFIX: prefix, WEBHOOK_SWEEP_INTERVAL_MS: '0', WEBHOOK_RETENTION_INTERVAL_MS: '0', ...QUICK_RETRIES };
  let t: TestApp;
  let account: TestAccount;
  let client: ApiClient;
  let otlp: OtlpReceiver;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let propertyId: string;
  const receivers: WebhookReceiver[] = [];
  const subscriptions: Record<'traced' | 'plain' | 'flaky', string> = { traced: '', plain: '', flaky: '' };

  beforeAll(async () => {
    t = await startApp(base);
    account = await createAccount(t);
    client = clientFor(t, account);
    propertyId = (await createProperty(client)).propertyId;
    otlp = await startOtlpReceiver();
    for (const name of ['traced', 'plain', 'flaky'] as const) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const body = { url: `${receiver.url}/hook`, eventFilters: ['booking.*'], ...(name === 'traced' ? { traceContext: true } : {}) };
      const res = await client.post('/v1/webhooks').send(body).expect(201);
      subscriptions[name] = res.body.id;
      if (name === 'traced') expect(res.body.traceContext).toBe(true);
      else expect(res.body).not.toHaveProperty('traceContext');
      // The flaky receiver fails the first attempt: the retry is a second attempt of the same delivery.
      if (name === 'flaky') receiver.enqueue({ status: 500, body: 'try again' });
    }
    const tracingEnv = {
      ...base,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    };
    [api, worker] = await Promise.all([spawnApiProcess(await freePort(), tracingEnv, 60_000), spawnWorkerProcess(tracingEnv, 60_000)]);
  }, 120_000);

  afterAll(async () => {
    for (const p of [api, worker]) if (p?.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(receivers.map((r) => r.close()));
    await otlp?.close();
    await t?.close();
    await dropRedisPrefix(runRedis(), prefix);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
      body: JSON.stringify(body),
    });

  it('a booking create is one trace: request, statements, dispatch, a claim and an attempt per subscription, a linked retry', async () => {
    const res = await post('/v1/bookings', validBooking(propertyId));
    expect(res.status).toBe(201);
    const booking = (await res.json()) as { bookingId: string };

    const [request] = await otlp.waitFor((s) => s.service === 'property-ops-api' && s.kind === 2 && s.name === 'POST /v1/bookings');
    const trace = (match: (s: ReceivedSpan) => boolean = () => true) => otlp.spans.filter((s) => s.traceId === request.traceId && match(s));
    // The transaction's statements, children (at some depth) of the request.
    const statement = (s: ReceivedSpan) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? '');
    await otlp.waitFor(
      (s) => s.traceId === request.traceId && s.service === 'property-ops-api' && /^INSERT INTO events/.test(statement(s)),
    );
    expect(trace((s) => s.service === 'property-ops-api' && /^INSERT INTO bookings/.test(statement(s)))).toHaveLength(1);

    // Dispatch: one span in the request's trace, the fan-out to the three subscriptions.
    const [dispatch] = await otlp.waitFor((s) => s.traceId === request.traceId && s.name === 'webhook.dispatch');
    expect(dispatch.service).toBe('property-ops-worker');
    expect(dispatch.attributes).toMatchObject({ 'webhook.event.name': 'booking.create', 'webhook.dispatch.deliveries': 3 });

    // Attempts: the traced and plain ones once, the flaky one twice (failed, then delivered), all in this trace.
    const attempts = await otlp.waitFor((s) => s.traceId === request.traceId && s.name === 'webhook.attempt', 4, 30_000);
    const of = (name: keyof typeof subscriptions) =>
      attempts.filter((s) => s.attributes['webhook.subscription.id'] === subscriptions[name]);
    expect(of('traced')).toHaveLength(1);
    expect(of('plain')).toHaveLength(1);
    const [traced] = of('traced');
    expect(traced.kind).toBe(3);
    expect(traced.attributes).toMatchObject({
      'webhook.id': traced.attributes['webhook.delivery.id'],
      'webhook.attempt': 1,
      'webhook.outcome': 'ok',
      'http.response.status_code': 200,
    });
    expect(typeof traced.attributes['webhook.duration_ms']).toBe('number');
    // Each attempt was claimed in this trace too, and recorded as its child.
    expect(
      trace((s) => s.name === 'webhook.claim' && s.attributes['webhook.delivery.id'] === traced.attributes['webhook.delivery.id']),
    ).toHaveLength(1);
    await otlp.waitFor((s) => s.name === 'webhook.record' && s.parentSpanId === traced.spanId);

    // The receiver that asked for trace context sees the attempt's span as its parent; the other sees none.
    const [tracedReceiver, plainReceiver] = receivers;
    const [received] = await tracedReceiver.waitFor(1);
    expect(received.headers.traceparent).toMatch(W3C);
    const [, traceId, parentId] = W3C.exec(received.headers.traceparent as string)!;
    expect({ traceId, parentId }).toEqual({ traceId: request.traceId, parentId: traced.spanId });
    expect((await plainReceiver.waitFor(1))[0].headers).not.toHaveProperty('traceparent');

    // The retry: a second attempt of the same delivery, in the same trace, linked to the failed one.
    const flaky = of('flaky').sort((a, b) => Number(a.attributes['webhook.attempt']) - Number(b.attributes['webhook.attempt']));
    expect(flaky.map((s) => [s.attributes['webhook.attempt'], s.attributes['webhook.outcome']])).toEqual([
      [1, 'failed'],
      [2, 'ok'],
    ]);
    expect(flaky[0].attributes['http.response.status_code']).toBe(500);
    expect(flaky[1].links).toEqual([{ traceId: request.traceId, spanId: flaky[0].spanId }]);

    // Route templates, never raw ids, in span names.
    const read = await fetch(`${api.url}/v1/bookings/${booking.bookingId}`, { headers: { 'x-api-key': account.apiKey } });
    expect(read.status).toBe(200);
    await otlp.waitFor((s) => s.kind === 2 && s.name === 'GET /v1/bookings/:bookingId');
    expect(otlp.spans.filter((s) => s.name.includes(booking.bookingId))).toEqual([]);

    // docs/operations.md shows this trace: TRACE_TREE_FILE=<path> writes it there as a text tree.
    if (process.env.TRACE_TREE_FILE) writeFileSync(process.env.TRACE_TREE_FILE, renderTrace(trace()));

    // Logs joined: the worker's line of the traced attempt carries its trace and span ids.
    // (Waited for: the line's pipe from the child may trail the spans' export.)
    await waitUntil(async () => worker.logs().some((l) => l.trace_id === request.traceId), 10_000, "the attempt's log line");
    const line = worker.logs().find((l) => l.trace_id === request.traceId);
    expect(line!.span_id).toMatch(/^[0-9a-f]{16}$/);
  }, 90_000);

  it('the default protocol (OTLP/HTTP protobuf) exports the same spans', async () => {
    const env = { ...base, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const proto = await spawnApiProcess(await freePort(), env, 60_000);
    try {
      const res = await fetch(`${proto.url}/v1/properties/${propertyId}`, { headers: { 'x-api-key': account.apiKey } });
      expect(res.status).toBe(200);
      // Not decoded: the protobuf body holds the span's name and the resource's service name as their UTF-8 bytes.
      await waitUntil(
        async () => otlp.protobufBodies.some((body) => body.includes('GET /v1/properties/:propertyId')),
        20_000,
        'a protobuf export',
      );
      expect(otlp.protobufBodies.some((body) => body.includes('property-ops-api'))).toBe(true);
    } finally {
      proto.child.kill('SIGKILL');
      await proto.exited;
    }
  }, 90_000);

  it('tracing off (no OTEL_* variable): the app boots, worker modules loaded too, with no SDK, instrumentation or exporter', async () => {
    const loaded = async (env: Record<string, string>) => {
      const script = `
        require('./dist/instrumentation/api.js');
        const { loadConfig } = require('./dist/config/config.js');
        const { createHttpApp } = require('./dist/http-app.js');
        require('./dist/worker.module.js');
        createHttpApp(loadConfig(process.env)).then(async (app) => {
          await app.init();
          // (The API package alone, @opentelemetry/api, is prom-client's, loaded with or without tracing.)
          const loaded = Object.keys(require.cache).filter((path) => new RegExp('@opentelemetry/(?!api/)|bullmq-otel').test(path));
          process.stdout.write(JSON.stringify(loaded.length));
          await app.close();
          process.exit(0);
        });`;
      const childEnv: NodeJS.ProcessEnv = { ...process.env, ...base, LOG_LEVEL: 'silent', ...env };
      for (const key of Object.keys(childEnv)) if (key.startsWith('OTEL_') && !(key in env)) delete childEnv[key];
      const child = spawn(process.execPath, ['-e', script], {
        cwd: join(__dirname, '..', '..'),
        env: childEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(out) as number; // (a child that failed prints nothing: the parse throws)
    };
    // The endpoint alone does not switch it on (nor does an exporter of `none`)…
    expect(await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })).toBe(0);
    expect(await loaded({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })).toBe(0);
    // …an exporter does (the same check, seeing what it should).
    expect(await loaded({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })).toBeGreaterThan(0);
  }, 90_000);
});
