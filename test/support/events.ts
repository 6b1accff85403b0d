import { DataSource } from 'typeorm';
import { TestApp } from './app';

/**
 * The feed only shows an event once every transaction that began before it has
 * ended (pg_snapshot_xmin, cluster-wide; see events.repository.ts), so a feed
 * read right after a commit can briefly miss it while unrelated transactions,
 * say of a parallel test file, are still open. Waiting here keeps tests exact.
 */
export async function waitUntilInFeed(t: TestApp, eventId: string, timeoutMs = 5000): Promise<void> {
  const db = t.app.get(DataSource);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.query(`SELECT tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS visible FROM events WHERE id = $1`, [eventId]);
    if (!row) throw new Error(`event ${eventId} does not exist (was its transaction rolled back?)`);
    if (row.visible) return;
    if (Date.now() > deadline) throw new Error(`event ${eventId} did not reach the feed within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
