import { untilAborted } from './until-aborted';

const never = () => new Promise<never>(() => undefined);

describe('untilAborted', () => {
  it('settles as the promise does while the signal has not aborted', async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve('value'), signal)).resolves.toBe('value');
    await expect(untilAborted(Promise.reject(new Error('failed')), signal)).rejects.toThrow('failed');
  });

  it('rejects with the reason once the signal aborts first', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(never(), controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
  });

  it('rejects at once when the signal has already aborted', async () => {
    await expect(untilAborted(Promise.resolve('late'), AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('ends a wait that never settles with AbortSignal.timeout', async () => {
    await expect(untilAborted(never(), AbortSignal.timeout(5))).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('drops a late rejection of the abandoned work without an unhandled rejection', async () => {
    const controller = new AbortController();
    let fail: (error: Error) => void = () => undefined;
    const work = new Promise<never>((_, reject) => (fail = reject));
    const waiting = untilAborted(work, controller.signal);
    controller.abort(new Error('first'));
    await expect(waiting).rejects.toThrow('first');
    fail(new Error('late'));
    await expect(work).rejects.toThrow('late');
  });
});
