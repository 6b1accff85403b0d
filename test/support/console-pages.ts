import { DataSource } from 'typeorm';
import { newIdAt } from '../../src/platform/ids/ids';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/** Reading the console's pages in tests: their text as a person reads it, and one element's content. */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);
}

/** The page's visible words: no tags, no attribute values (an <option value="failed_permanent"> is no text). */
export function pageText(html: string): string {
  const body = html.replace(/^[\s\S]*?<body[^>]*>/, '').replace(/<(script|style)[\s\S]*?<\/\1>/g, '');
  return unescapeHtml(body.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
}

/** The text content of the element with this id (a <pre>, an <output>), as the page holds it. */
export function elementText(html: string, id: string): string | undefined {
  const match = new RegExp(`<(pre|output)[^>]*\\sid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match ? unescapeHtml(match[2]) : undefined;
}

/** How many times `text` occurs in `haystack`. */
export function occurrences(haystack: string, text: string): number {
  return haystack.split(text).length - 1;
}

/**
 * Delivery log rows of a subscription written straight into the table, a second apart in id order (the log's
 * order), `n` from 0: what a long log looks like without sending hundreds of events.
 */
export async function insertDeliveries(
  db: DataSource,
  target: { accountId: string; subscriptionId: string },
  rows: Array<{ eventName: string; status: 'pending' | 'delivered' | 'failed_permanent' }>,
): Promise<string[]> {
  const start = Date.now() - 3_600_000;
  const ids: string[] = [];
  for (const [n, row] of rows.entries()) {
    const id = newIdAt(WEBHOOK_IDS.delivery, new Date(start + n * 1_000));
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, test, test_payload, status, attempt_count)
       VALUES ($1, $2, $3, NULL, $4, true, '{}', $5, $6)`,
      [id, target.accountId, target.subscriptionId, row.eventName, row.status, row.status === 'pending' ? 0 : 1],
    );
    ids.push(id);
  }
  return ids;
}
