import { createHook } from 'node:async_hooks';

export interface HandleTracker {
  /**
   * What is alive now and keeps the process running: `Timeout(<ms>)` or the socket's kind, and where it
   * was made. A timer re-armed by a leftover of an earlier test file of the same jest worker counts too:
   * its place says whose it is.
   */
  alive(): string[];
  /**
   * Polls for up to `timeoutMs` (default 1 s) until nothing tracked is alive, then stops tracking;
   * fails naming what is left. A jest worker is given 500 ms to exit once its files are done.
   */
  expectNoneLeft(timeoutMs?: number): Promise<void>;
}

/** Jest's own timers (its reporters run in this process when it runs in band) are not the test's. */
const JEST_FRAME = /[/\\](@jest|jest-[a-z-]+)[/\\]/;

/**
 * Timers and sockets created from now on, found as `jest --detectOpenHandles` finds them (async_hooks),
 * for tests that something closed leaves nothing running: a leftover keeps a jest worker (or a
 * process) from exiting. The tracker's own polling timers are left out.
 */
export function trackHandles(): HandleTracker {
  type Resource = { hasRef?: () => boolean; _idleTimeout?: number };
  const live = new Map<number, { type: string; resource: Resource; where: string }>();
  let polling = false;
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (polling || !['Timeout', 'TCPWRAP', 'TCPCONNECTWRAP'].includes(type)) return;
      const stack = new Error().stack ?? '';
      if (JEST_FRAME.test(stack)) return;
      // Where it was made, for the failure message: the first frame outside Node's own code.
      const where = stack.split('\n').find((line) => line.includes(' at ') && !line.includes('node:') && !line.includes('handles.ts'));
      live.set(id, { type, resource: resource as Resource, where: where?.trim().replace(/^at /, '') ?? '?' });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  const alive = () =>
    [...live.values()]
      .filter(({ resource }) => resource.hasRef?.() ?? true)
      .map(({ type, resource, where }) => `${type === 'Timeout' ? `Timeout(${resource._idleTimeout} ms)` : type} from ${where}`);
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      polling = true;
      try {
        setTimeout(resolve, ms);
      } finally {
        polling = false;
      }
    });
  return {
    alive,
    async expectNoneLeft(timeoutMs = 1_000) {
      const deadline = Date.now() + timeoutMs;
      while (alive().length > 0 && Date.now() < deadline) await pause(50);
      hook.disable();
      expect(alive()).toEqual([]);
    },
  };
}
