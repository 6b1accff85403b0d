import { ChildProcess, spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { Pool } from 'undici';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { benchEnv, bootApp, ms, stats } from '../support';

const SUBSCRIPTIONS = 20;
const EVENTS_FOR_THROUGHPUT = 500; // × 20 subscriptions = 10,000 deliveries
const LATENCY_EVENTS = 600;
const LATENCY_RATE_PER_SECOND = 200;

/** A receiver answering 204 at once, noting when each delivery (by event id) first arrived. */
async function startReceiver(): Promise<{ server: Server; url: string; firstSeen: Map<string, number>; count: () => number }> {
  const firstSeen = new Map<string, number>();
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      received++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const key = `${req.url}|${body.results?.[0]?.seq}`;
      if (!firstSeen.has(key)) firstSeen.set(key, now);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, firstSeen, count: () => received };
}

function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'src', 'worker.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // The worker has no "ready" signal of its own; give it time to connect and register its processors.
  return new Promise((resolve) => setTimeout(() => resolve(child), 2500));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Issue 4's targets: one worker process sustains at least 1,000 deliveries/s to a
 * local receiver, and commit → first delivery attempt has p95 under 50 ms. The raw
 * baseline is the same number of POSTs sent straight to the receiver by a plain
 * undici pool of the worker's concurrency, in the same run.
 */
export async function webhookFanout() {
  const receiver = await startReceiver();
  const { app, origin } = await bootApp({ WEBHOOK_RETRY_BASE_MS: '30000' });
  const { accountId, apiKey } = await app.get(AccountsService).createAccount({ name: 'bench', plan: 'pro', active: true });
  const api = new Pool(origin, { connections: 1 });
  const subscribe = async (path: string, filter: string) => {
    const res = await api.request({
      method: 'POST',
      path: '/v1/webhooks',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}${path}`, eventFilters: [filter] }),
    });
    if (res.statusCode !== 201) throw new Error(`creating a subscription answered ${res.statusCode}: ${await res.body.text()}`);
    await res.body.dump();
  };
  for (let i = 0; i < SUBSCRIPTIONS; i++) await subscribe(`/hook/${i}`, 'fanout.*');
  await subscribe('/latency', 'latency.*');
  const worker = await startWorkerProcess(benchEnv());
  const uow = app.get(UnitOfWork);
  const events = app.get(EventsService);
  let seq = 0;
  const publish = async (eventName: string) => {
    const mine = seq++;
    await uow.run({ accountId, requestId: `bench-${mine}`, clientRequestId: `bench-${mine}` }, (tx) =>
      events.publish(tx, eventName, [{ seq: mine }]),
    );
    return { seq: mine, committedAt: performance.now() };
  };

  try {
    // Throughput: 500 events fanned out to 20 subscriptions = 10,000 deliveries.
    const total = EVENTS_FOR_THROUGHPUT * SUBSCRIPTIONS;
    const start = performance.now();
    for (let i = 0; i < EVENTS_FOR_THROUGHPUT; i += 25) await Promise.all(Array.from({ length: 25 }, () => publish('fanout.tick')));
    await until(() => receiver.firstSeen.size >= total, 120_000);
    const engineSeconds = (performance.now() - start) / 1000;
    const engineRate = total / engineSeconds;

    // Raw baseline: the same number of POSTs straight from one undici pool.
    const raw = new Pool(receiver.url, { connections: 100 });
    const body = JSON.stringify({ eventName: 'fanout.tick', results: [{ seq: -1 }] });
    const rawStart = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (sent < total) {
          sent++;
          const res = await raw.request({ method: 'POST', path: '/raw', headers: { 'content-type': 'application/json' }, body });
          await res.body.dump();
        }
      }),
    );
    const rawRate = total / ((performance.now() - rawStart) / 1000);
    await raw.close();

    // Latency: a steady stream of events to one subscription, commit → first attempt.
    const commits: Array<{ seq: number; committedAt: number }> = [];
    const gap = 1000 / LATENCY_RATE_PER_SECOND;
    const streamStart = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const due = streamStart + i * gap;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(publish('latency.tick').then((c) => void commits.push(c)));
    }
    await Promise.all(inFlight);
    await until(() => commits.every((c) => receiver.firstSeen.has(`/latency|${c.seq}`)), 60_000);
    const warm = commits.slice(Math.floor(commits.length / 6)); // the first second warms pools and the JIT
    const latency = stats(warm.map((c) => receiver.firstSeen.get(`/latency|${c.seq}`)! - c.committedAt));

    const pass = engineRate >= 1000 && latency.p95 < 50;
    return {
      name: 'webhook-fanout',
      budget: '≥ 1,000 deliveries/s with one worker; commit → first attempt p95 < 50 ms',
      pass,
      results: { deliveries: total, engineRate, rawRate, ratio: engineRate / rawRate, latency },
      table: [
        ['measure', 'value'],
        [`fan-out: ${EVENTS_FOR_THROUGHPUT} events × ${SUBSCRIPTIONS} subscriptions, one worker`, `${Math.round(engineRate)} deliveries/s`],
        ['raw baseline: the same POSTs from one undici pool (100 connections)', `${Math.round(rawRate)} requests/s`],
        ['engine / raw', `${((engineRate / rawRate) * 100).toFixed(0)} %`],
        [`commit → first attempt at ${LATENCY_RATE_PER_SECOND} events/s, p50`, ms(latency.p50)],
        [`commit → first attempt at ${LATENCY_RATE_PER_SECOND} events/s, p95`, ms(latency.p95)],
      ],
    };
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    await api.close();
    await app.close();
    receiver.server.close();
  }
}
