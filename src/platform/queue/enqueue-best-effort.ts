import { Logger } from '@nestjs/common';
import { untilAborted } from '../async/until-aborted';

/**
 * Failed adds per logger since its last add that worked: while Redis is down every write's add fails, and
 * a line per request is what an outage must not log. The first failure is logged, the rest counted, and
 * the first add that works again logs how many failed in between.
 */
const failingSince = new WeakMap<Logger, { failures: number; since: number }>();

/** How long a producer waits for Redis to take its jobs before leaving them to the sweep. */
export const ENQUEUE_WITHIN_MS = 2_000;

/** The process's RedisCircuit, as a producer uses it. */
export interface EnqueueCircuit {
  readonly isOpen: boolean;
  timedOut(operation: string, reason: string): void;
  gaveUp(operation: string): void;
}

/**
 * Adds jobs that are only the fast path: the database is the truth and a sweep (undispatched events, pending
 * deliveries, reminders due, feeds due, batches unprocessed) finds whatever a lost add left behind. So it never
 * throws and waits at most `withinMs`: with Redis unreachable BullMQ's commands wait for it to come back, and a
 * request or a sweep must not. An add that lands after the deadline is harmless (every producer uses job ids),
 * and its late failure is dropped. Resolves true once Redis took the jobs, false when it gave up (logged as
 * `<failure>: <reason>`; the failure says what was lost and who catches it up), once per run of failures.
 */
export async function enqueueBestEffort(
  add: () => Promise<unknown>,
  logger: Logger,
  failure: string,
  withinMs = ENQUEUE_WITHIN_MS,
  circuit?: EnqueueCircuit,
): Promise<boolean> {
  // With `circuit`: while Redis is taken for hung, nothing is added (the sweep catches it up, as it
  // does an add that timed out) rather than piling commands onto a connection that does not answer;
  // an add that times out opens it.
  if (circuit?.isOpen) {
    circuit.gaveUp('enqueue');
    return false;
  }
  let adding: Promise<unknown>;
  try {
    adding = add();
  } catch (error) {
    adding = Promise.reject(error as Error);
  }
  adding.catch(() => undefined); // a failure after the deadline is the sweep's too
  try {
    await untilAborted(adding, AbortSignal.timeout(withinMs));
  } catch (error) {
    if (circuit && error instanceof DOMException && error.name === 'TimeoutError') circuit.timedOut('enqueue', failure);
    const failing = failingSince.get(logger);
    if (failing) {
      failing.failures++;
    } else {
      failingSince.set(logger, { failures: 1, since: Date.now() });
      logger.warn(`${failure}: ${(error as Error).message} (further failures are counted until an add works again)`);
    }
    return false;
  }
  const failed = failingSince.get(logger);
  if (failed) {
    failingSince.delete(logger);
    logger.log(
      `enqueueing works again, after ${failed.failures} failed add(s) in ${Date.now() - failed.since} ms (the sweep catches those up)`,
    );
  }
  return true;
}
