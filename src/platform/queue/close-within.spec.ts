import { EventEmitter } from 'node:events';
import { closeWithin } from './close-within';

/** A Redis client of a connection: up unless told otherwise, and an event emitter like ioredis'. */
class FakeClient extends EventEmitter {
  constructor(public status = 'ready') {
    super();
  }

  connected(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

/** A queue or worker noting what happens to it and to its connections (a worker's command and blocking ones). */
function target(opts: { ready?: Promise<unknown>; close?: Promise<void>; blocking?: FakeClient } = {}) {
  const calls: string[] = [];
  const connection = (name: string, client = new FakeClient()) => ({
    client: Promise.resolve(client),
    disconnect: jest.fn((wait?: boolean) => (calls.push(`drop ${name}${wait === false ? '' : ' (waiting)'}`), Promise.resolve())),
    on: jest.fn((event: string) => calls.push(`${name} hears ${event}`)),
  });
  return {
    calls,
    waitUntilReady: jest.fn(() => (calls.push('ready?'), opts.ready ?? Promise.resolve())),
    close: jest.fn(
      (force?: boolean) => (calls.push(force ? 'close (force)' : 'close'), force ? Promise.resolve() : (opts.close ?? Promise.resolve())),
    ),
    connection: connection('connection'),
    blockingConnection: connection('blocking connection', opts.blocking),
  };
}

describe('closeWithin', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('closes once connected, and says it closed in time', async () => {
    const t = target();
    await expect(closeWithin(t, 1_000)).resolves.toBe(true);
    expect(t.calls).toEqual(['ready?', 'close']);
  });

  it('never closes a connection still being opened: it waits for it first', async () => {
    let connected: () => void = () => undefined;
    const t = target({ ready: new Promise<void>((resolve) => (connected = resolve)) });
    const closing = closeWithin(t, 1_000);
    await jest.advanceTimersByTimeAsync(100);
    expect(t.close).not.toHaveBeenCalled();
    connected();
    await expect(closing).resolves.toBe(true);
    expect(t.calls).toEqual(['ready?', 'close']);
  });

  it('nor one waiting to reconnect (a worker would wait forever for its blocking connection to end): it waits for it to be up again', async () => {
    const blocking = new FakeClient('reconnecting');
    const t = target({ blocking });
    const closing = closeWithin(t, 1_000);
    await jest.advanceTimersByTimeAsync(500);
    expect(t.close).not.toHaveBeenCalled();
    blocking.connected();
    await expect(closing).resolves.toBe(true);
    expect(t.calls).toEqual(['ready?', 'close']);
    expect(blocking.listenerCount('ready')).toBe(0);
  });

  it('gives up after the bound (a QUIT waiting for a Redis that went away) and drops every connection under it', async () => {
    const t = target({ close: new Promise<void>(() => undefined) });
    const closing = closeWithin(t, 1_000);
    await jest.advanceTimersByTimeAsync(999);
    expect(t.connection.disconnect).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(closing).resolves.toBe(false);
    expect(t.calls).toEqual(['ready?', 'close', 'drop connection', 'drop blocking connection']);
  });

  it('when Redis never answered, force-closes it after the bound (BullMQ drops connections still opening) and hears their last error', async () => {
    const t = target({ ready: new Promise(() => undefined) });
    const closing = closeWithin(t, 500);
    await jest.advanceTimersByTimeAsync(499);
    expect(t.close).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(closing).resolves.toBe(false);
    // Not disconnect(): BullMQ's waits for the connection to be ready, which never comes.
    expect(t.calls).toEqual(['ready?', 'close (force)', 'connection hears error', 'blocking connection hears error']);
  });

  it('force-closes it the same way when Redis was lost and is not back within the bound', async () => {
    const blocking = new FakeClient('reconnecting');
    const t = target({ blocking });
    const closing = closeWithin(t, 500);
    await jest.advanceTimersByTimeAsync(500);
    await expect(closing).resolves.toBe(false);
    await jest.advanceTimersByTimeAsync(0);
    expect(t.calls).toEqual(['ready?', 'close (force)', 'connection hears error', 'blocking connection hears error']);
    expect(blocking.listenerCount('ready')).toBe(0);
  });

  it('does not wait on a forced close that hangs past its own guard', async () => {
    const t = target({ ready: new Promise(() => undefined) });
    t.close.mockImplementation((force?: boolean) => (t.calls.push(force ? 'close (force)' : 'close'), new Promise<void>(() => undefined)));
    const closing = closeWithin(t, 500);
    await jest.advanceTimersByTimeAsync(500 + 1_000);
    await expect(closing).resolves.toBe(false);
    expect(t.calls).toEqual(['ready?', 'close (force)']);
  });
});
