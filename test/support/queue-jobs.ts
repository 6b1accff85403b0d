import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Job, Queue, Worker } from 'bullmq';
import type { RedisTarget } from '../../src/config/redis-config';
import { bullMqConnection } from '../../src/platform/redis/redis-factory';
import { waitUntil } from './wait';

/**
 * BullMQ jobs left in the states a worker can leave them in, for tests of what the engine does with
 * them: taken into `active` by a process that then dies (its lock held until it runs out), or finished
 * (`completed`/`failed`) and kept. Each works on the queue `queueName` under `prefix` of `redisUrl`.
 */
export interface QueueTarget {
  /** The app's Redis (config.redis). */
  redis: RedisTarget;
  /** The queue's whole BullMQ prefix (queuePrefix). */
  prefix: string;
  queueName: string;
}

/**
 * Takes the next job of the queue into `active` in a process of its own, holding BullMQ's lock for
 * `lockDurationMs` as a worker does, then kills that process with SIGKILL: the job stays active, its id
 * held, until the lock runs out and a stalled check moves it. Resolves with the job's id.
 */
export async function holdNextJobInKilledProcess(target: QueueTarget, lockDurationMs: number): Promise<string> {
  const script = `
    const { Worker } = require('bullmq');
    const { bullMqConnection } = require('./dist/platform/redis/redis-factory');
    const worker = new Worker(process.env.QUEUE, null, {
      connection: bullMqConnection(JSON.parse(process.env.REDIS_TARGET)).connection, prefix: process.env.PREFIX,
      lockDuration: Number(process.env.LOCK_MS), autorun: false,
    });
    worker.getNextJob('doomed-holder').then((job) => process.stdout.write('held ' + (job ? job.id : '') + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      QUEUE: target.queueName,
      REDIS_TARGET: JSON.stringify(target.redis),
      PREFIX: target.prefix,
      LOCK_MS: String(lockDurationMs),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  try {
    const line = await waitUntil(async () => /^held (.*)$/m.exec(stdout), 10_000, 'the holder process to take a job');
    if (!line[1]) throw new Error('the holder process found no job');
    return line[1];
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Adds a job with this id and data, kept once finished, and runs it to `completed` or `failed` by hand. */
export async function finishJobAndKeepIt(target: QueueTarget, jobId: string, data: object, state: 'completed' | 'failed'): Promise<void> {
  const producer = bullMqConnection(target.redis);
  const consumer = bullMqConnection(target.redis);
  const queue = new Queue(target.queueName, { connection: producer.connection, prefix: target.prefix });
  const worker = new Worker(target.queueName, null, { connection: consumer.connection, prefix: target.prefix, autorun: false });
  try {
    await queue.add('deliver', data, { jobId, removeOnComplete: false, removeOnFail: false });
    const job: Job | undefined = await worker.getNextJob('finisher');
    if (job?.id !== jobId) throw new Error(`expected to take job ${jobId}, took ${job?.id}`);
    if (state === 'completed') await job.moveToCompleted('done', 'finisher', false);
    else await job.moveToFailed(new Error('failed by the test'), 'finisher', false);
    expect(await queue.getJobState(jobId)).toBe(state);
  } finally {
    await worker.close();
    await queue.close();
    producer.owned?.disconnect();
    consumer.owned?.disconnect();
  }
}
