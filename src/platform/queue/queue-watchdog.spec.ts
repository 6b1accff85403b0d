import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Metrics } from '../metrics/metrics';
import { QueueWatchdog } from './queue-watchdog';

/** A BullMQ worker as the watchdog sees it: events, its loop, its two connections, its keys. */
function fakeWorker(waiting: number | 'hung', running = true) {
  const events = new EventEmitter();
  const command = {
    llen: jest.fn(() => (waiting === 'hung' ? new Promise<number>(() => undefined) : Promise.resolve(waiting))),
    zcard: jest.fn(() => Promise.resolve(0)),
    disconnect: jest.fn(),
  };
  const blocking = { disconnect: jest.fn() };
  const worker = {
    on: (event: string, listener: () => void) => events.on(event, listener),
    isRunning: () => running,
    run: jest.fn(() => Promise.resolve()),
    client: Promise.resolve(command),
    closing: undefined,
    keys: { wait: 'pop:{q}:q:wait', prioritized: 'pop:{q}:q:prioritized' },
    blockingConnection: { _client: blocking },
  };
  return { worker, events, command, blocking };
}

describe('QueueWatchdog', () => {
  const logger = { warn: jest.fn(), log: jest.fn() } as unknown as Logger;
  let metrics: Metrics;
  const watchdogs: QueueWatchdog[] = [];
  const watch = (worker: ReturnType<typeof fakeWorker>['worker']) => {
    const watchdog = new QueueWatchdog(worker as never, 'q', 10_000, logger, metrics, 60_000);
    watchdogs.push(watchdog);
    return watchdog;
  };
  beforeEach(() => (metrics = new Metrics('worker')));
  afterEach(() => watchdogs.splice(0).forEach((w) => w.stop()));

  const recoveries = async () => (await metrics.queueWatchdogRecoveries.get()).values[0]?.value ?? 0;

  it('leaves a worker alone within its bound, and an idle one with nothing waiting', async () => {
    const { worker, blocking } = fakeWorker(0);
    const watchdog = watch(worker);
    await watchdog.check(Date.now() + 5_000);
    await watchdog.check(Date.now() + 20_000);
    expect(blocking.disconnect).not.toHaveBeenCalled();
    expect(await recoveries()).toBe(0);
  });

  it('reconnects the blocking connection of a worker idle past its bound with jobs waiting, once per bound', async () => {
    const { worker, blocking } = fakeWorker(3);
    const watchdog = watch(worker);
    await watchdog.check(Date.now() + 20_000);
    expect(blocking.disconnect).toHaveBeenCalledWith(true);
    expect(await recoveries()).toBe(1);
    await watchdog.check(Date.now() + 1_000);
    expect(await recoveries()).toBe(1);
    expect(watchdog.state).toMatchObject({ queue: 'q', recoveries: 1 });
  });

  it('counts a job moving as progress', async () => {
    const { worker, events, blocking } = fakeWorker(3);
    const watchdog = watch(worker);
    const later = Date.now() + 20_000;
    jest.spyOn(Date, 'now').mockReturnValue(later - 1_000);
    events.emit('completed');
    jest.restoreAllMocks();
    await watchdog.check(later);
    expect(blocking.disconnect).not.toHaveBeenCalled();
  });

  it('runs again a fetch loop that ended', async () => {
    const { worker, blocking } = fakeWorker(2, false);
    await watch(worker).check(Date.now() + 20_000);
    expect(worker.run).toHaveBeenCalled();
    expect(blocking.disconnect).not.toHaveBeenCalled();
  });

  it('reconnects a command connection that does not answer its check', async () => {
    const { worker, command } = fakeWorker('hung');
    await watch(worker).check(Date.now() + 20_000);
    expect(command.disconnect).toHaveBeenCalledWith(true);
    expect(await recoveries()).toBe(1);
  }, 10_000);
});
