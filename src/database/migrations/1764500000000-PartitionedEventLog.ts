import { MigrationInterface, QueryRunner } from 'typeorm';
import { idTime } from '../../platform/ids/ids';
import { createDefaultPartition, createPartitions, PartitionedTable } from '../../platform/database/partitions';
import { PARTITIONS_AHEAD_MS } from '../../platform/database/partitions.rules';

const EVENTS: PartitionedTable = { table: 'events', idPrefix: 'evt' };
const DELIVERIES: PartitionedTable = { table: 'webhook_deliveries', idPrefix: 'whd' };
const DELIVERY_KEYS: PartitionedTable = { table: 'webhook_delivery_keys', idPrefix: 'evt' };
/** Rows older than this go to the default partition (the next retention run deletes them) rather than get partitions of their own. */
const OLDEST_PARTITION_MS = 120 * 24 * 3600 * 1000;

/**
 * Issue 21 item 5: the event log and the webhook deliveries (attempts are inline in their delivery) are
 * range-partitioned by week on their id, a time-ordered ULID (platform/database/partitions.rules.ts),
 * so retention drops whole partitions and a lookup by id reads one partition. A unique constraint on
 * a partitioned table must contain its partition key, so "one delivery per (event, subscription)"
 * moves to `webhook_delivery_keys`, partitioned by the event's id; for the same reason the deliveries'
 * foreign key to the events goes (a delivery may outlive its event by days: they are dropped by their
 * own weeks). Existing rows are copied, tables swapped, in the migration's transaction (writes wait for
 * it: docs/operations.md says how long). `down` converts back.
 */
export class PartitionedEventLog1764500000000 implements MigrationInterface {
  name = 'PartitionedEventLog1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_unpartitioned`);
    await q.query(`ALTER TABLE events RENAME TO events_unpartitioned`);
    const now = new Date();
    const from = async (table: string, key: string) => {
      const [row] = await q.query(`SELECT min(${key}) AS min FROM ${table}`);
      const oldest = (row.min && idTime(row.min)) || now;
      return new Date(Math.max(oldest.getTime(), now.getTime() - OLDEST_PARTITION_MS));
    };
    const ahead = new Date(now.getTime() + PARTITIONS_AHEAD_MS);

    await q.query(`CREATE TABLE events (LIKE events_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id)`);
    await createPartitions(q, EVENTS, await from('events_unpartitioned', 'id'), ahead);
    await createDefaultPartition(q, EVENTS);
    await q.query(`INSERT INTO events SELECT * FROM events_unpartitioned`);

    await q.query(
      `CREATE TABLE webhook_deliveries (LIKE webhook_deliveries_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id)`,
    );
    await createPartitions(q, DELIVERIES, await from('webhook_deliveries_unpartitioned', 'id'), ahead);
    await createDefaultPartition(q, DELIVERIES);
    await q.query(`INSERT INTO webhook_deliveries SELECT * FROM webhook_deliveries_unpartitioned`);

    await q.query(`
      CREATE TABLE webhook_delivery_keys (
        account_id text COLLATE "C" NOT NULL,
        event_id text COLLATE "C" NOT NULL,
        subscription_id text COLLATE "C" NOT NULL,
        delivery_id text COLLATE "C" NOT NULL
      ) PARTITION BY RANGE (event_id)`);
    await createPartitions(q, DELIVERY_KEYS, await from('webhook_deliveries_unpartitioned', 'event_id'), ahead);
    await createDefaultPartition(q, DELIVERY_KEYS);
    await q.query(`
      INSERT INTO webhook_delivery_keys (account_id, event_id, subscription_id, delivery_id)
      SELECT account_id, event_id, subscription_id, id FROM webhook_deliveries_unpartitioned WHERE event_id IS NOT NULL`);

    await q.query(`DROP TABLE webhook_deliveries_unpartitioned`);
    await q.query(`DROP TABLE events_unpartitioned`);

    // Indexes on the parents (each partition gets its own), built once the rows are in.
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id)`);
    await q.query(
      `ALTER TABLE events ADD CONSTRAINT events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE`,
    );
    // The feed reads in commit-safe order (transaction id, then id); see events.repository.ts.
    await q.query(`CREATE INDEX events_feed_idx ON events (account_id, tx_id, id)`);
    await q.query(`CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`);

    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_subscription_id_fkey
         FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions (id) ON DELETE CASCADE`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (account_id, subscription_id, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`);
    await q.query(
      `CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (in_flight_until) WHERE in_flight_until IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_snippets_idx ON webhook_deliveries (snippets_expire_at) WHERE snippets_expire_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL`);

    // One delivery per (event, subscription): what ON CONFLICT of dispatch and replay is about.
    await q.query(
      `ALTER TABLE webhook_delivery_keys ADD CONSTRAINT webhook_delivery_keys_pkey PRIMARY KEY (account_id, event_id, subscription_id)`,
    );
  }

  /** Back to plain tables (docs/operations.md, "Rolling back the partitioning"): rows kept, the old indexes and keys rebuilt. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE events_unpartitioned (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    await q.query(`INSERT INTO events_unpartitioned SELECT * FROM events`);
    await q.query(`CREATE TABLE webhook_deliveries_unpartitioned (LIKE webhook_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    // A delivery whose event retention already dropped cannot come back under the foreign key.
    await q.query(
      `INSERT INTO webhook_deliveries_unpartitioned SELECT d.* FROM webhook_deliveries d
        WHERE d.event_id IS NULL OR EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)`,
    );
    await q.query(`DROP TABLE webhook_delivery_keys`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE events`);
    await q.query(`ALTER TABLE events_unpartitioned RENAME TO events`);
    await q.query(`ALTER TABLE webhook_deliveries_unpartitioned RENAME TO webhook_deliveries`);

    await q.query(`ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id)`);
    await q.query(
      `ALTER TABLE events ADD CONSTRAINT events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE`,
    );
    await q.query(`CREATE INDEX events_feed_idx ON events (account_id, tx_id, id)`);
    await q.query(`CREATE INDEX events_created_idx ON events (created_at)`);
    await q.query(`CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`);

    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_subscription_id_fkey
         FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions (id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
         FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE`,
    );
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_subscription_uq ON webhook_deliveries (event_id, subscription_id) WHERE event_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (account_id, subscription_id, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`);
    await q.query(
      `CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (in_flight_until) WHERE in_flight_until IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_snippets_idx ON webhook_deliveries (snippets_expire_at) WHERE snippets_expire_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL`);
  }
}
