import { Logger } from '@nestjs/common';
import { PeriodicTaskLock, TaskClaim } from './periodic-task-lock';
import { PeriodicTask, Scheduler } from './scheduler';

/** A lock that always lets the task run (or answers what `next` says), recording what each run reported. */
function fakeLock() {
  const finished: unknown[] = [];
  const state: { next?: TaskClaim } = {};
  const lock = {
    claim: jest.fn(async (): Promise<TaskClaim> => {
      const claim = state.next ?? { kind: 'run', finish: async (error?: unknown) => void finished.push(error ?? null) };
      state.next = undefined;
      return claim;
    }),
  };
  return { lock: lock as unknown as PeriodicTaskLock, claims: lock.claim, finished, state };
}

function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Scheduler', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts tasks once the application has booted, then repeats them every interval; interval 0 means never', async () => {
    const { lock, finished } = fakeLock();
    const scheduler = new Scheduler(lock, () => 0);
    const run = jest.fn(async () => undefined);
    scheduler.register({ name: 'sweep', intervalMs: 1_000, run });
    scheduler.register({ name: 'off', intervalMs: 0, run });
    expect(scheduler.taskNames()).toEqual(['sweep']);

    await jest.advanceTimersByTimeAsync(5_000);
    expect(run).not.toHaveBeenCalled();
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    expect(finished).toEqual([null, null]);
    await scheduler.stop();
  });

  it('never overlaps a task with itself: the next wait starts when a run ends', async () => {
    const { lock } = fakeLock();
    const scheduler = new Scheduler(lock, () => 0);
    const gate = deferred();
    let running = 0;
    let peak = 0;
    const run = jest.fn(async () => {
      peak = Math.max(peak, ++running);
      if (run.mock.calls.length === 1) await gate.promise;
      running--;
    });
    scheduler.register({ name: 'slow', intervalMs: 100, run });
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(run).toHaveBeenCalledTimes(1);
    gate.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(2);
    expect(peak).toBe(1);
    await scheduler.stop();
  });

  it('logs a failed run as one line and carries on; the lock hears of the failure', async () => {
    const { lock, finished } = fakeLock();
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const scheduler = new Scheduler(lock, () => 0);
    const run = jest.fn().mockRejectedValueOnce(new Error('database went away')).mockResolvedValue(undefined);
    scheduler.register({ name: 'flaky', intervalMs: 50, run });
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(50);
    expect(run).toHaveBeenCalledTimes(2);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors).toHaveBeenCalledWith(
      { task: 'flaky', durationMs: expect.any(Number), error: 'database went away' },
      'periodic task failed',
    );
    expect(finished).toEqual([expect.objectContaining({ message: 'database went away' }), null]);
    errors.mockRestore();
    await scheduler.stop();
  });

  it('looks again when the task comes due after another worker ran it, and logs a lock that cannot be reached', async () => {
    const { lock, claims, state } = fakeLock();
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const scheduler = new Scheduler(lock, () => 0);
    const run = jest.fn(async () => undefined);
    state.next = { kind: 'skip', dueInMs: 300 };
    scheduler.register({ name: 'shared', intervalMs: 1_000, run });
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(claims).toHaveBeenCalledTimes(1);
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(300);
    expect(run).toHaveBeenCalledTimes(1);

    claims.mockRejectedValueOnce(new Error('connection refused'));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveBeenCalledWith({ task: 'shared', error: 'connection refused' }, 'periodic task could not be claimed');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(run).toHaveBeenCalledTimes(2);
    errors.mockRestore();
    await scheduler.stop();
  });

  it('stops on shutdown: asks the run under way to stop, waits for it, and starts no other', async () => {
    const { lock } = fakeLock();
    const scheduler = new Scheduler(lock, () => 0);
    let seen: AbortSignal | undefined;
    const gate = deferred();
    const task: PeriodicTask = {
      name: 'long',
      intervalMs: 10,
      run: jest.fn(async (signal: AbortSignal) => {
        seen = signal;
        await gate.promise;
      }),
    };
    scheduler.register(task);
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = scheduler.onModuleDestroy().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(task.run).toHaveBeenCalledTimes(1);
  });

  it('gives up waiting for a run that does not stop after 5 s', async () => {
    const { lock } = fakeLock();
    const scheduler = new Scheduler(lock, () => 0);
    scheduler.register({ name: 'stuck', intervalMs: 10, run: () => new Promise(() => undefined) });
    scheduler.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(4_999);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await stopping;
    expect(stopped).toBe(true);
  });

  it('refuses a task name registered twice', () => {
    const scheduler = new Scheduler(fakeLock().lock, () => 0);
    scheduler.register({ name: 'x', intervalMs: 10, run: async () => undefined });
    expect(() => scheduler.register({ name: 'x', intervalMs: 20, run: async () => undefined })).toThrow('registered twice');
  });
});
