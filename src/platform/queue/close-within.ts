/**
 * Closes a BullMQ queue or worker (a worker first lets its running jobs finish), waiting at most
 * `withinMs`: closing sends QUIT, which waits for Redis forever while it is down. Past the bound its
 * connection is dropped without waiting (a disconnect during a reconnect never settles either) and
 * shutdown goes on; true when it closed in time.
 */
export async function closeWithin(
  target: { waitUntilReady(): Promise<unknown>; close(): Promise<void>; disconnect(): Promise<void> },
  withinMs: number,
): Promise<boolean> {
  // Closed while still connecting, BullMQ emits the aborted connect as an error nobody hears any more
  // (an unhandled rejection): it is let finish connecting first, within the same bound.
  const closed = target
    .waitUntilReady()
    .then(
      () => target.close(),
      () => target.close(),
    )
    .then(
      () => true,
      () => true,
    );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
  const inTime = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (!inTime) target.disconnect().catch(() => undefined);
  return inTime;
}
