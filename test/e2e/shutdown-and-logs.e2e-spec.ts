import { createServer, Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { clientFor, createAccount, startApp, TestAccount, TestApp, ApiClient } from '../support/app';
import { spawnApiProcess, ApiProcess } from '../support/api-process';
import { TINY_JPEG } from '../support/images';
import { freePort } from '../support/private-services';
import { dropRedisPrefix, runRedis, TEST_RUN_ID } from '../support/test-env';
import { waitUntil } from '../support/wait';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { deliveriesOf, subscribe } from '../support/webhooks';
import { spawnWorkerProcess, WorkerProcess } from '../support/worker-process';
import { validProperty } from '../support/properties';

/**
 * The built API and worker as real child processes (on the run's database and a Redis prefix of this
 * file's own): SIGTERM mid-request and mid-delivery loses nothing and sends nothing twice; their JSON
 * logs carry the fields operators need and never a key, secret or signature; the worker serves its
 * metrics. The sweep is off (it would scan other files' accounts), so only the fast path runs.
 */
const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const UNMATCHED = '/v1/no-such-route';

describe('processes: graceful shutdown, logs, worker metrics', () => {
  const prefix = `pop-test-${TEST_RUN_ID}-shutdown`;
  let env: Record<string, string>;
  let t: TestApp;
  let account: TestAccount;
  let api: ApiProcess;
  let client: ApiClient;
  let receiver: WebhookReceiver;
  let secret: string;
  let subscriptionId: string;
  const workers: WorkerProcess[] = [];
  let releaseDelivery: () => void = () => undefined;

  beforeAll(async () => {
    env = {
      REDIS_PREFIX: prefix,
      METRICS_TOKEN,
      WEBHOOK_SWEEP_INTERVAL_MS: '0',
      WEBHOOK_RETENTION_INTERVAL_MS: '0',
      WEBHOOK_TIMEOUT_MS: '10000',
      SHUTDOWN_TIMEOUT_MS: '20000',
    };
    t = await startApp(env);
    account = await createAccount(t);
    client = clientFor(t, account);
    receiver = await startReceiver();
    // The first delivery is held until the test lets it go: the worker is stopped while it is in flight.
    const held = new Promise<void>((resolve) => (releaseDelivery = resolve));
    receiver.respondWith(async (_req, index) => {
      if (index === 0) await held;
      return { status: 204 };
    });
    const subscription = await subscribe(client, `${receiver.url}/hook`, ['*']);
    secret = subscription.signingSecret;
    subscriptionId = subscription.id;
    api = await spawnApiProcess(await freePort(), env);
  }, 60_000);

  afterAll(async () => {
    releaseDelivery();
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    if (api?.child.exitCode === null) api.child.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
    await dropRedisPrefix(runRedis(), prefix);
  });

  const createProperty = (body = validProperty()) =>
    fetch(`${api.url}/v1/properties`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
      body: JSON.stringify(body),
    });

  it('worker: SIGTERM mid-delivery finishes and records the attempt, then exits; the next worker takes what was queued', async () => {
    const first = await spawnWorkerProcess(env);
    workers.push(first);
    expect((await createProperty()).status).toBe(201);
    await receiver.waitFor(1, 20_000);
    first.child.kill('SIGTERM');
    // Still in flight: the worker waits for the receiver rather than dropping the attempt.
    await waitUntil(async () => first.logs().some((l) => l.msg === 'worker stopping'), 10_000, 'the worker to start stopping');
    expect(first.child.exitCode).toBeNull();
    releaseDelivery();
    expect(await first.exited).toEqual({ code: 0, signal: null });

    // Written while no worker runs: its dispatch job waits in Redis for the next worker.
    expect((await createProperty()).status).toBe(201);
    const second = await spawnWorkerProcess({ ...env, WORKER_METRICS_PORT: String(await freePort()) });
    workers.push(second);
    await receiver.waitFor(2, 20_000);
    const rows: Array<Record<string, any>> = await waitUntil(
      async () => {
        const all = await deliveriesOf(client, subscriptionId);
        return all.length === 2 && all.every((d) => d.status === 'delivered') ? all : undefined;
      },
      20_000,
      'both deliveries recorded as delivered',
    );
    expect(rows.map((d) => d.attemptCount)).toEqual([1, 1]);
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(rows.map((d) => d.id).sort());
  }, 90_000);

  it('worker: serves its metrics on WORKER_METRICS_PORT behind the token', async () => {
    const worker = workers[1];
    const port = Number((worker.logs().find((l) => l.msg === 'worker started') as { metricsPort?: number }).metricsPort);
    const url = `http://127.0.0.1:${port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const family of [
      'pop_queue_jobs',
      'pop_queue_job_duration_seconds',
      'pop_webhook_deliveries_total',
      'pop_webhook_attempt_duration_seconds',
      'pop_webhook_auto_disables_total',
      'pop_reminders_fired_total',
      'pop_event_feed_delay_seconds',
      'pop_events_undispatched_oldest_seconds',
      'process_cpu_seconds_total',
    ]) {
      expect({ family, found: text.includes(`# TYPE ${family} `) }).toEqual({ family, found: true });
    }
    expect(text).toMatch(/pop_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    expect(text).toMatch(/pop_queue_jobs\{queue="webhook-delivery",state="waiting"\} \d/);
  });

  it('API: a request no route serves is "unmatched" in its metrics and has no route in its log line', async () => {
    expect((await fetch(`${api.url}${UNMATCHED}`, { headers: { 'x-api-key': account.apiKey } })).status).toBe(404);
    const metrics = await (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('pop_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1');
    // Not the template of the catch-all routes Nest mounts the middleware (request ids, logging) on.
    expect(metrics).not.toContain('{*path}');
    await waitUntil(
      async () => api.logs().some((l) => (l.req as { path?: string } | undefined)?.path === UNMATCHED),
      5_000,
      'its log line',
    );
    const line = api.logs().find((l) => (l.req as { path?: string } | undefined)?.path === UNMATCHED)!;
    expect(line).toMatchObject({ res: { status: 404 } });
    expect(line).not.toHaveProperty('route');
  });

  it('API: SIGTERM mid-request refuses new connections, finishes the request in flight, then exits', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const images: Server = createServer((_req, res) => {
      asked++;
      void held.then(() => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(TINY_JPEG));
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    try {
      const propertyId = ((await (await createProperty()).json()) as { propertyId: string }).propertyId;
      const inFlight = fetch(`${api.url}/v1/propertyPictures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
        body: JSON.stringify({
          sourceId: 'held-1',
          propertyId,
          sourceUrl: `http://127.0.0.1:${(images.address() as AddressInfo).port}/p.jpg`,
        }),
      });
      await waitUntil(async () => asked === 1, 10_000, 'the picture download to start');
      api.child.kill('SIGTERM');
      const port = Number(new URL(api.url).port);
      await waitUntil(() => refused(port), 10_000, 'the API to stop accepting connections');
      release();
      const res = await inFlight;
      expect(res.status).toBe(201);
      const picture = (await res.json()) as { pictureId: string };
      expect(await api.exited).toEqual({ code: 0, signal: null });
      // Committed, and its event delivered by the worker still running.
      expect((await client.get(`/v1/propertyPictures/${picture.pictureId}/content`)).status).toBe(200);
      await receiver.waitFor(4, 20_000);
      expect(receiver.requests.filter((r) => r.rawBody.includes('"propertyPicture.create"'))).toHaveLength(1);
    } finally {
      await new Promise((resolve) => images.close(resolve));
    }
  }, 60_000);

  it('logs: one JSON line per request and per attempt with the fields operators need, never a key, secret or signature', async () => {
    const requests = api.logs().filter((l) => l.req && l.res && (l.req as { path: string }).path !== UNMATCHED);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    for (const line of requests) {
      expect(line).toMatchObject({
        requestId: expect.any(String),
        accountId: account.accountId,
        route: expect.stringMatching(/^\/v1\//),
        res: { status: expect.any(Number) },
        durationMs: expect.any(Number),
      });
    }
    expect(requests.map((l) => l.route)).toEqual(expect.arrayContaining(['/v1/properties', '/v1/propertyPictures']));
    // Each key once in the raw line (JSON.parse keeps the last of duplicates; log stores such as Elasticsearch reject them).
    const rawRequestLines = api
      .output()
      .split('\n')
      .filter((line) => line.includes('"req":{') && !line.includes(UNMATCHED));
    expect(rawRequestLines.length).toBe(requests.length);
    for (const line of rawRequestLines) {
      for (const key of ['route', 'accountId', 'requestId'])
        expect({ key, times: line.split(`"${key}":`).length - 1 }).toEqual({ key, times: 1 });
    }

    const attempts = workers.flatMap((w) => w.logs()).filter((l) => l.msg === 'webhook attempt');
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    for (const line of attempts) {
      expect(line).toMatchObject({
        deliveryId: expect.stringMatching(/^whd_/),
        subscriptionId,
        outcome: 'delivered',
        result: 'success',
        durationMs: expect.any(Number),
      });
    }

    const everything =
      api.output() +
      workers
        .map(
          (w) =>
            w
              .logs()
              .map((l) => JSON.stringify(l))
              .join('\n') + w.stderr(),
        )
        .join('\n');
    const signatures = receiver.requests.flatMap((r) =>
      String(r.headers['webhook-signature'])
        .split(' ')
        .map((v) => v.slice(3)),
    );
    for (const secretValue of [account.apiKey, secret, ...signatures]) expect(everything).not.toContain(secretValue);
  });
});

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
