/** A BullMQ queue or worker, as closeWithin closes it. */
export interface Closable {
  waitUntilReady(): Promise<unknown>;
  /** `force`: a worker does not wait for its running jobs, and connections not ready yet are dropped. */
  close(force?: boolean): Promise<void>;
}

/**
 * Closes a BullMQ queue or worker (a worker first lets its running jobs finish), waiting at most
 * `withinMs`: closing sends QUIT, which waits for Redis forever while it is down. Past the bound its
 * connections are dropped without waiting (a disconnect during a reconnect never settles either) and
 * shutdown goes on; true when it closed in time. Nothing of it keeps reconnecting afterwards, whether
 * Redis went away during the close or never answered at all.
 */
export async function closeWithin(target: Closable, withinMs: number): Promise<boolean> {
  // Closed while still connecting, BullMQ emits the aborted connect as an error nobody hears any more
  // (an unhandled rejection): it is let finish connecting first, within the same bound.
  let closing = false;
  const close = () => ((closing = true), target.close());
  const closed = target.waitUntilReady().then(close, close);
  if (await within(closed, withinMs)) return true;
  const connections = connectionsOf(target);
  if (closing) {
    // Its close waits on a Redis that went away (the QUIT, a worker's running jobs): the connections
    // under it are dropped. BullMQ's own disconnect() would leave a worker's blocking connection open.
    // Such a worker keeps its lock-renewal and stalled-check timers, which BullMQ stops only at the end
    // of that close: the worker process exits without waiting for them.
    for (const connection of connections) connection.disconnect(false).catch(() => undefined);
    return false;
  }
  // Redis never answered. BullMQ's disconnect() waits for the connection to be ready first, so it
  // never drops it and ioredis reconnects every second for good (an API whose Redis was down at
  // start still had them after app.close()). A forced close drops a connection still being opened
  // and stops a worker's timers; the connect it aborts can still end in an error, after BullMQ
  // removed its listeners: it is heard here instead of becoming an unhandled rejection.
  const forced = target.close(true).finally(() => connections.forEach((connection) => connection.on('error', () => undefined)));
  await within(forced, FORCED_CLOSE_WITHIN_MS);
  return false;
}

/** A forced close of connections that never opened settles at once; the bound is only a guard. */
const FORCED_CLOSE_WITHIN_MS = 1_000;

/** True when `work` settled (fulfilled or rejected) within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = work.then(
    () => true,
    () => true,
  );
  const inTime = await Promise.race([settled, timedOut]);
  clearTimeout(timer);
  return inTime;
}

/** One of BullMQ's Redis connections (its RedisConnection class). */
interface BullMqConnection {
  disconnect(wait?: boolean): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The Redis connections under a BullMQ queue or worker: its command connection and a worker's
 * blocking one. They are not BullMQ's public API (a protected and a private field), which the
 * end-to-end test of closeWithin on real BullMQ objects (test/e2e/queue-shutdown.e2e-spec.ts) pins.
 */
function connectionsOf(target: Closable): BullMqConnection[] {
  const { connection, blockingConnection } = target as { connection?: BullMqConnection; blockingConnection?: BullMqConnection };
  return [connection, blockingConnection].filter((one): one is BullMqConnection => one !== undefined);
}
