/**
 * Settles as `promise` does, or rejects with the signal's reason once the signal aborts first: a
 * deadline for work that takes no AbortSignal itself (a DNS lookup, a query, a Redis PING). Only the
 * wait ends; the work carries on and its late result is dropped. `AbortSignal.timeout(ms)` makes the
 * signal a time-out.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
