import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { closeWithin } from '../../src/platform/queue/close-within';
import { redisConnectionOptions } from '../../src/platform/redis/redis-factory';
import { trackHandles } from '../support/handles';
import { PrivateRedis, startPrivateRedis } from '../support/private-services';
import { waitUntil } from '../support/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require('../../scripts/ensure-built.js') as { ensureBuilt: () => void };

/**
 * closeWithin on real BullMQ queues and workers whose Redis is gone: once it gives up, nothing of
 * them may keep running (an ioredis client reconnecting every second is a timer and a socket in turn,
 * and keeps the process alive: the jest worker that ran health.e2e-spec.ts could not exit). It reaches
 * into BullMQ's connections, which are not public API: this is the test that says so when a BullMQ
 * upgrade moves them. Queues and workers are opened as queueProvider and QueueWorkers open them.
 */
describe('closeWithin with Redis gone', () => {
  const prefix = `pop-test-queue-shutdown-${process.pid}`;

  function queueOn(redisUrl: string): Queue {
    const queue = new Queue('shutdown', { connection: redisConnectionOptions(redisUrl), prefix });
    // As watchBullMqOutages does: an error event nobody hears would throw.
    queue.on('error', () => undefined);
    return queue;
  }

  it('never answered: gives up after the bound and leaves nothing reconnecting, of a queue or a worker', async () => {
    const handles = trackHandles();
    // Port 1: nothing listens, every connection attempt fails at once and ioredis retries.
    const queue = queueOn('redis://127.0.0.1:1');
    const worker = new Worker('shutdown', async () => undefined, { connection: redisConnectionOptions('redis://127.0.0.1:1'), prefix });
    worker.on('error', () => undefined);
    await expect(closeWithin(worker, 300)).resolves.toBe(false);
    await expect(closeWithin(queue, 300)).resolves.toBe(false);
    await handles.expectNoneLeft();
  });

  describe('on a redis-server stopped after they connected', () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await startPrivateRedis();
    });
    afterAll(() => redis?.stop());

    it('closes a worker in time when Redis has just come back, its connections still reconnecting, and leaves nothing running', async () => {
      const handles = trackHandles();
      const worker = new Worker('shutdown', async () => undefined, { connection: redisConnectionOptions(redis.url), prefix });
      worker.on('error', () => undefined);
      const client = await worker.waitUntilReady();
      await redis.stop();
      await waitUntil(async () => client.status === 'reconnecting', 5_000, 'the worker to notice Redis is gone');
      await redis.start();
      // Closed at once, a connection waiting to reconnect was disconnected and waited on for good.
      await expect(closeWithin(worker, 5_000)).resolves.toBe(true);
      await handles.expectNoneLeft();
    });

    it('gives up after the bound (its QUIT waits for Redis) and leaves nothing reconnecting', async () => {
      const handles = trackHandles();
      const queue = queueOn(redis.url);
      const client = await queue.waitUntilReady();
      await redis.stop();
      await waitUntil(async () => client.status === 'reconnecting', 5_000, 'the queue to notice Redis is gone');
      // A command queued while Redis is down (a job being added, say) holds the QUIT behind it.
      void client.get('anything').catch(() => undefined);
      await expect(closeWithin(queue, 300)).resolves.toBe(false);
      await handles.expectNoneLeft();
    });
  });
});

/**
 * A worker whose job outlasts closeWithin's bound while Redis is up (a slow receiver under load): the
 * close gives up and drops its connections, then the job ends and BullMQ records its completion on a
 * closed connection. BullMQ retried that at once and forever, a promise loop that starved every timer
 * (the worker process at 90% CPU, its shutdown deadline never firing). Run in a process of its own,
 * on the built closeWithin, since that loop would also starve this test's own timeout.
 */
describe('closeWithin on a worker whose job outlasts the bound', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    ensureBuilt();
    redis = await startPrivateRedis();
  });
  afterAll(() => redis?.stop());

  it('gives up, and once the job ends the process still runs its timers', async () => {
    const script = `
      const { Queue, Worker } = require('bullmq');
      const { closeWithin } = require('./dist/platform/queue/close-within');
      const { redisConnectionOptions } = require('./dist/platform/redis/redis-factory');
      const connection = redisConnectionOptions(process.env.REDIS_URL);
      const prefix = process.env.PREFIX;
      (async () => {
        let finishJob;
        const job = new Promise((resolve) => (finishJob = resolve));
        const queue = new Queue('outlasting', { connection, prefix });
        const worker = new Worker('outlasting', () => job, { connection, prefix });
        worker.on('error', () => undefined);
        await worker.waitUntilReady();
        const active = new Promise((resolve) => worker.once('active', resolve));
        await queue.add('slow', {});
        await active;
        await queue.close();
        const inTime = await closeWithin(worker, 300);
        finishJob('done');
        setTimeout(() => {
          process.stdout.write('timers run, closed in time: ' + inTime + '\\n');
          process.exit(0);
        }, 100);
      })();`;
    const child = spawn(process.execPath, ['-e', script], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, REDIS_URL: redis.url, PREFIX: `pop-test-outlasting-${process.pid}` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    try {
      await waitUntil(async () => stdout.includes('timers run'), 15_000, 'the process to run a timer after the job ended');
      expect(stdout).toContain('closed in time: false');
      await expect(exited).resolves.toBe(0);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
