import { closeWithin } from './close-within';

function target(opts: { ready?: Promise<unknown>; close?: Promise<void> } = {}) {
  const calls: string[] = [];
  return {
    calls,
    waitUntilReady: jest.fn(() => (calls.push('ready?'), opts.ready ?? Promise.resolve())),
    close: jest.fn(() => (calls.push('close'), opts.close ?? Promise.resolve())),
    disconnect: jest.fn(() => (calls.push('disconnect'), Promise.resolve())),
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

  it('gives up after the bound (a QUIT waiting for a Redis that is down) and drops the connection', async () => {
    const t = target({ close: new Promise<void>(() => undefined) });
    const closing = closeWithin(t, 1_000);
    await jest.advanceTimersByTimeAsync(999);
    expect(t.disconnect).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(closing).resolves.toBe(false);
    expect(t.calls).toEqual(['ready?', 'close', 'disconnect']);
  });

  it('gives up the same way when Redis never answered at all', async () => {
    const t = target({ ready: new Promise(() => undefined) });
    const closing = closeWithin(t, 500);
    await jest.advanceTimersByTimeAsync(500);
    await expect(closing).resolves.toBe(false);
    expect(t.calls).toEqual(['ready?', 'disconnect']);
  });
});
