/** Polling helpers shared by the end-to-end tests. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` every `intervalMs` until it returns a truthy value (returned), or fails with the last
 * value seen once `timeoutMs` has passed. A probe that throws ends the wait with its error.
 */
export async function waitUntil<T>(
  probe: () => Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
  intervalMs = 50,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await sleep(intervalMs);
  }
}
