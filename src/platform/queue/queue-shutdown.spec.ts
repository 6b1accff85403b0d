import { QueueShutdown } from './queue-shutdown';

/** A queue or worker whose close never ends (a QUIT waiting for a Redis that is down), noting what happened to it. */
function stuck(name: string, log: string[]) {
  return {
    waitUntilReady: () => Promise.resolve(),
    close: () => (log.push(`close ${name}`), new Promise<void>(() => undefined)),
    connection: {
      client: Promise.resolve({ status: 'ready' }),
      disconnect: () => (log.push(`drop ${name}`), Promise.resolve()),
      on: () => undefined,
    },
  };
}

describe('QueueShutdown', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('closes every worker at once, so their bounds do not add up, and the queues after them', async () => {
    const log: string[] = [];
    const shutdown = new QueueShutdown();
    shutdown.closeWorkerOnShutdown(stuck('worker a', log), 3_000);
    shutdown.closeWorkerOnShutdown(stuck('worker b', log), 5_000);
    shutdown.closeQueueOnShutdown(stuck('queue', log), 2_000);

    const workers = shutdown.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['close worker a', 'close worker b']);
    await jest.advanceTimersByTimeAsync(5_000);
    await workers;
    expect(log).toEqual(['close worker a', 'close worker b', 'drop worker a', 'drop worker b']);

    const queues = shutdown.beforeApplicationShutdown();
    await jest.advanceTimersByTimeAsync(2_000);
    await queues;
    expect(log.slice(4)).toEqual(['close queue', 'drop queue']);
  });

  it('closes each once, however often shutdown is asked', async () => {
    const log: string[] = [];
    const shutdown = new QueueShutdown();
    shutdown.closeQueueOnShutdown({
      waitUntilReady: async () => undefined,
      close: async () => void log.push('close'),
    });
    await shutdown.beforeApplicationShutdown();
    await shutdown.beforeApplicationShutdown();
    expect(log).toEqual(['close']);
  });
});
