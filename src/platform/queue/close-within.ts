import { EventEmitter, once } from 'node:events';

/** A BullMQ queue or worker, as closeWithin closes it. */
export interface Closable {
  waitUntilReady(): Promise<unknown>;
  /** `force`: connections are dropped rather than sent QUIT, and a worker does not wait for its running jobs. */
  close(force?: boolean): Promise<void>;
}

/**
 * Closes a BullMQ queue or worker (a worker first lets its running jobs finish), waiting at most
 * `withinMs`: closing sends QUIT, which waits for Redis forever while it is down. Past the bound its
 * connections are dropped without waiting and shutdown goes on; true when it closed in time. Nothing
 * of it keeps running afterwards (a client reconnecting every second, a worker's timers), except as
 * said below when Redis goes away while the close is under way.
 */
export async function closeWithin(target: Closable, withinMs: number): Promise<boolean> {
  endRetriesOnceDropped(target);
  const connections = connectionsOf(target);
  // A close is started only while every connection is up. Closed while still connecting, BullMQ emits
  // the aborted connect as an error nobody hears any more (an unhandled rejection). And a worker's
  // close disconnects its blocking connection and waits for it to end, which never happens to one
  // waiting to reconnect (ioredis clears the retry and goes quiet): it hung for good when Redis had
  // just come back and only the command connection was up again.
  const giveUp = new AbortController();
  let closing = false;
  const close = () => ((closing = true), target.close());
  const up = target.waitUntilReady().then(() => Promise.all(connections.map((connection) => connectedNow(connection, giveUp.signal))));
  // Past the bound the wait is given up (an abort, not a failure to connect): no close then but the forced one below.
  const closed = up.then(close, () => (giveUp.signal.aborted ? undefined : close()));
  const inTime = await within(closed, withinMs);
  giveUp.abort();
  if (inTime) return true;
  if (closing) {
    // Redis went away while it closed: the connections under it are dropped (BullMQ's own disconnect()
    // would leave a worker's blocking connection open). The close itself never ends then, and a
    // worker keeps its lock-renewal and stalled-check timers, which BullMQ stops at its end: the
    // worker process exits without waiting for them.
    dropped.add(target);
    for (const connection of connections) connection.disconnect(false).catch(() => undefined);
    return false;
  }
  // Redis did not answer within the bound (never, or not since it was lost). BullMQ's disconnect()
  // waits for a connection that never was ready to become ready, so it never drops it, and ioredis
  // reconnected every second for good (an API whose Redis was down at start still had its clients
  // after app.close()). A forced close drops the connections without waiting (a worker's running
  // jobs go on and record in PostgreSQL) and stops a worker's timers; a connect it aborts can still
  // end in an error after BullMQ removed its listeners: it is heard here instead of going unhandled.
  dropped.add(target);
  const forced = target.close(true).finally(() => connections.forEach((connection) => connection.on('error', () => undefined)));
  await within(forced, FORCED_CLOSE_WITHIN_MS);
  return false;
}

/** Queues and workers whose connections closeWithin dropped: a command of theirs can never succeed again. */
const dropped = new WeakSet<Closable>();

/** The error a dropped worker's retries end with: not a connection error, so BullMQ does not retry it. */
const DROPPED_MESSAGE = 'its Redis connections were dropped at shutdown';

/**
 * Makes a BullMQ worker give up a command once closeWithin dropped its connections. BullMQ retries a
 * command that failed on a connection error (retryIfFailed, a private method), and while the worker
 * is closing it retries at once and forever: a job that finished after its connections were dropped
 * retried recording its completion on "Connection is closed." in a promise loop that starved timers
 * and I/O, so the worker process never exited. Each attempt is checked, so retries already under way
 * end too: the job stays active in Redis, as after a crash, for the stalled check to take back.
 * Called when the worker is registered for shutdown (QueueShutdown) and again by closeWithin; once each.
 */
export function endRetriesOnceDropped(target: Closable): void {
  const worker = target as unknown as { retryIfFailed?: RetryIfFailed; [GUARDED]?: true };
  const retryIfFailed = worker.retryIfFailed;
  if (typeof retryIfFailed !== 'function' || worker[GUARDED]) return;
  worker[GUARDED] = true;
  worker.retryIfFailed = (attempt, options) =>
    retryIfFailed.call(worker, () => (dropped.has(target) ? Promise.reject(new Error(DROPPED_MESSAGE)) : attempt()), options);
}

type RetryIfFailed = (attempt: () => Promise<unknown>, options: unknown) => Promise<unknown>;
const GUARDED = Symbol('endRetriesOnceDropped');

/** Resolves once the connection's client is up now (not only once was), or rejects when `signal` aborts. */
async function connectedNow(connection: BullMqConnection, signal: AbortSignal): Promise<void> {
  const client = await connection.client;
  if (client.status !== 'ready') await once(client as unknown as EventEmitter, 'ready', { signal });
}

/** A forced close does not wait on Redis and settles at once; the bound is only a guard. */
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
  readonly client: Promise<{ status: string }>;
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
