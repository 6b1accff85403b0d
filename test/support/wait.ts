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

/** A database to ask pg_stat_activity (a TypeORM DataSource or anything with its `query`). */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

/**
 * How many statements of this test's database wait for a lock, their text starting with `statementStart`
 * ('' for any), polled until there are at least `atLeast`: what proves a request is blocked on a lock the test
 * holds, with no sleep. Fails past the time-out.
 */
export async function statementsWaitingOnLock(db: Queryable, statementStart = '', atLeast = 1, timeoutMs = 10_000): Promise<number> {
  return waitUntil(
    async () => {
      const [row] = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND ltrim(query) ILIKE $1`,
        [`${statementStart}%`],
      );
      return (row.n as number) >= atLeast ? (row.n as number) : 0;
    },
    timeoutMs,
    `${atLeast} statement(s) "${statementStart}…" waiting on a lock`,
  );
}
