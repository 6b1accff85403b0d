/**
 * An error and every error behind it, outermost first: `.cause` chains (fetch wraps a connect error in a
 * TypeError) and AggregateError `.errors` (happy eyeballs: one per address tried). Each object once, and at
 * most `limit` of them, so a cycle or a huge aggregate cannot hang the caller.
 */
export function* errorChain(error: unknown, limit = 50): Generator<object> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < limit) {
    const current = queue.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    yield current;
    const { cause, errors } = current as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
}
