import { Queue, Worker } from 'bullmq';

/*
 * S5's first ceiling: BullMQ itself, with a processor that does nothing, over as many jobs as the
 * fan-out delivers, at the worker's delivery concurrency. Jobs are added first; the time runs from
 * the worker's start to the last completion. Prints {jobs, perSecond}.
 * `node bullmq-noop.js '{"redisUrl":"...","prefix":"...","jobs":N,"concurrency":C,"payload":{...}}'`
 */
interface Input {
  redisUrl: string;
  prefix: string;
  jobs: number;
  concurrency: number;
  payload: Record<string, unknown>;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]) as Input;
  const connection = { url: input.redisUrl, maxRetriesPerRequest: null };
  const name = `noop-${process.pid}`;
  const queue = new Queue(name, { connection, prefix: input.prefix });
  for (let i = 0; i < input.jobs; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, input.jobs - i) }, (_, n) => ({
      name: 'deliver',
      data: { ...input.payload, n: i + n },
      opts: { removeOnComplete: true, removeOnFail: true },
    }));
    await queue.addBulk(batch);
  }
  let completed = 0;
  let finish: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (finish = resolve));
  const started = performance.now();
  const worker = new Worker(name, async () => undefined, { connection, prefix: input.prefix, concurrency: input.concurrency });
  worker.on('completed', () => {
    if (++completed === input.jobs) finish();
  });
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  process.stdout.write(JSON.stringify({ jobs: input.jobs, perSecond: input.jobs / seconds }));
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
