import { DataSource } from 'typeorm';
import { PartitionUpkeepService } from '../../src/modules/webhooks/engine/maintenance/partition-upkeep.service';
import { WebhookRetentionService } from '../../src/modules/webhooks/engine/maintenance/webhook-retention.service';
import { newIdAt } from '../../src/platform/ids/ids';
import { PARTITION_SPAN_MS, partitionAt, spanStart } from '../../src/platform/database/partitions.rules';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { feedEvents } from '../support/events';
import { dropRedisPrefix } from '../support/test-env';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { subscribe } from '../support/webhooks';
import { startWorker, TestWorker } from '../support/worker';
import { EVENT_IDS } from '../../src/modules/events/events.ids';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * The event log and the deliveries are partitioned by week on their ids (docs/events.md): the feed, the
 * delivery log and their cursors read across a partition boundary as they read within one, the upkeep
 * task keeps partitions ahead, and retention drops whole partitions past 90 days and keeps the rest.
 * Rows of the past are written in SQL with ids of their time, in this file's own accounts; the weeks
 * used (about 8 and about 29 weeks back) are ones no other file writes to.
 */
const ENV = {
  REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-partitions`,
  // Scheduled tasks scan the whole database other files share: off; the tests call the services.
  WEBHOOK_SWEEP_INTERVAL_MS: '0',
  WEBHOOK_RETENTION_INTERVAL_MS: '0',
};
const DAY = 24 * 3600 * 1000;

describe('time partitions of the event log and the deliveries', () => {
  let t: TestApp;
  let db: DataSource;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  /** The boundary between two weekly partitions, about 8 weeks back (inside retention). */
  const boundary = spanStart(new Date(Date.now() - 56 * DAY));

  beforeAll(async () => {
    t = await startApp(ENV);
    db = t.app.get(DataSource);
    worker = await startWorker(ENV);
    receiver = await startReceiver();
    // The partitions on both sides of the boundary, as the upkeep task made them back then.
    await worker.ctx.get(PartitionUpkeepService).run({ now: new Date(boundary.getTime() - PARTITION_SPAN_MS) });
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
    await dropRedisPrefix(t.config.redis, ENV.REDIS_PREFIX);
  });

  /** Ids minted just before and just after the boundary: `n` on each side, oldest first. */
  function idsAcross(kind: 'event' | 'delivery', n: number): { before: string[]; after: string[] } {
    const at = (offsetMs: number) =>
      newIdAt({ event: EVENT_IDS.event, delivery: WEBHOOK_IDS.delivery }[kind], new Date(boundary.getTime() + offsetMs));
    return {
      before: Array.from({ length: n }, (_, i) => at(i - n)).sort(),
      after: Array.from({ length: n }, (_, i) => at(i)).sort(),
    };
  }

  async function partitionsOf(table: string, ids: string[]): Promise<string[]> {
    const rows = await db.query(`SELECT DISTINCT tableoid::regclass::text AS name FROM ${table} WHERE id = ANY($1) ORDER BY 1`, [ids]);
    return rows.map((r: { name: string }) => r.name);
  }

  async function insertEvents(accountId: string, ids: string[]): Promise<void> {
    await db.query(
      `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results, created_at, dispatched_at)
       SELECT id, $2, 'property.create', 'client_sql', 'req_sql', '[{"via":"sql"}]', now(), now() FROM unnest($1::text[]) AS id`,
      [ids, accountId],
    );
  }

  it('pages the events feed across a partition boundary in feed order, skipping nothing', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const { before, after } = idsAcross('event', 3);
    // The later week's events commit first: the feed's order is the commit-safe (transaction, id)
    // order, whatever partitions the rows are in.
    await insertEvents(account.accountId, after);
    await insertEvents(account.accountId, before);
    expect(await partitionsOf('events', [...before, ...after])).toEqual([
      partitionAt('events', new Date(boundary.getTime() - PARTITION_SPAN_MS)).name,
      partitionAt('events', boundary).name,
    ]);

    const expected = [...after, ...before];
    const whole = await feedEvents(api, { atLeast: 6 });
    expect(whole.map((e) => e.id)).toEqual(expected);
    for (const limit of [1, 2, 4]) {
      expect(await pageThrough(api, `/v1/events?limit=${limit}`, 'after')).toEqual(expected);
    }
  });

  it('pages the delivery log across a partition boundary newest first, skipping nothing', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const sub = await subscribe(api, `${receiver.url}/partitions`);
    const { before, after } = idsAcross('delivery', 3);
    await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_name, test, test_payload, status)
       SELECT id, $2, $3, 'webhook.test', true, '{}', 'delivered' FROM unnest($1::text[]) AS id`,
      [[...after, ...before], account.accountId, sub.id],
    );
    expect(await partitionsOf('webhook_deliveries', [...before, ...after])).toEqual([
      partitionAt('webhook_deliveries', new Date(boundary.getTime() - PARTITION_SPAN_MS)).name,
      partitionAt('webhook_deliveries', boundary).name,
    ]);

    const expected = [...after.reverse(), ...before.reverse()];
    for (const limit of [1, 2, 4, 100]) {
      expect(await pageThrough(api, `/v1/webhooks/${sub.id}/deliveries?limit=${limit}`, 'cursor')).toEqual(expected);
    }
  });

  it('keeps partitions four weeks ahead', async () => {
    await worker.ctx.get(PartitionUpkeepService).run();
    const ahead = spanStart(new Date(Date.now() + 3 * PARTITION_SPAN_MS));
    for (const table of ['events', 'webhook_deliveries', 'webhook_delivery_keys']) {
      const [row] = await db.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [partitionAt(table, ahead).name]);
      expect({ table, present: row.present }).toEqual({ table, present: true });
    }
  });

  it('retention drops the partitions past 90 days whole and keeps the others', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const sub = await subscribe(api, `${receiver.url}/retention`);
    const old = new Date(Date.now() - 200 * DAY);
    await worker.ctx.get(PartitionUpkeepService).run({ now: old });
    const oldWeek = spanStart(old);
    const oldEvent = newIdAt(EVENT_IDS.event, old);
    const keptEvent = newIdAt(EVENT_IDS.event, new Date(boundary.getTime() + 1000));
    await insertEvents(account.accountId, [oldEvent, keptEvent]);
    const [oldDelivery, keptDelivery] = [
      newIdAt(WEBHOOK_IDS.delivery, old),
      newIdAt(WEBHOOK_IDS.delivery, new Date(boundary.getTime() + 1000)),
    ];
    await db.query(
      `WITH d AS (
         INSERT INTO webhook_deliveries (id, account_id, subscription_id, event_id, event_name, status)
         SELECT d.id, $3, $4, d.event_id, 'property.create', 'delivered' FROM unnest($1::text[], $2::text[]) AS d(id, event_id)
         RETURNING id, event_id
       )
       INSERT INTO webhook_delivery_keys (account_id, event_id, subscription_id, delivery_id) SELECT $3, event_id, $4, id FROM d`,
      [[oldDelivery, keptDelivery], [oldEvent, keptEvent], account.accountId, sub.id],
    );
    const oldPartitions = ['events', 'webhook_deliveries', 'webhook_delivery_keys'].map((table) => partitionAt(table, oldWeek).name);
    expect(await partitionsOf('events', [oldEvent])).toEqual([oldPartitions[0]]);

    await worker.ctx.get(WebhookRetentionService).run();

    // (Another file's retention run may have dropped them first: the state is what counts.)
    const present = await db.query(`SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL`, [oldPartitions]);
    expect(present).toEqual([]);
    expect((await db.query(`SELECT id FROM events WHERE id = ANY($1)`, [[oldEvent, keptEvent]])).map((r: { id: string }) => r.id)).toEqual([
      keptEvent,
    ]);
    const deliveries = await db.query(`SELECT id FROM webhook_deliveries WHERE id = ANY($1)`, [[oldDelivery, keptDelivery]]);
    expect(deliveries.map((r: { id: string }) => r.id)).toEqual([keptDelivery]);
    const keys = await db.query(`SELECT delivery_id FROM webhook_delivery_keys WHERE account_id = $1`, [account.accountId]);
    expect(keys.map((r: { delivery_id: string }) => r.delivery_id)).toEqual([keptDelivery]);
    // The weeks inside retention are all still there.
    const kept = partitionAt('events', boundary).name;
    expect((await db.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [kept]))[0].present).toBe(true);
  });
});

/** Every id of a cursor list, page by page (`param` names the list's cursor parameter). */
async function pageThrough(api: ApiClient, path: string, param: 'after' | 'cursor'): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const res = await api.get(`${path}${cursor ? `&${param}=${encodeURIComponent(cursor)}` : ''}`).expect(200);
    ids.push(...res.body.data.map((row: { id: string }) => row.id));
    if (!res.body.hasMore) return ids;
    cursor = res.body.nextCursor;
  }
  throw new Error(`${path} did not end within 50 pages`);
}
