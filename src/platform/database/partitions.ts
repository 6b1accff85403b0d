import { DataSource } from 'typeorm';
import { idBoundAt } from '../ids/ids';
import { PartitionSpan, defaultPartitionName, expiredPartitions, partitionsCovering } from './partitions.rules';

/** What runs SQL: a DataSource, a QueryRunner (migrations) or an EntityManager. */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's rows
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/** SQLSTATE deadlock_detected, and how many times a partition's DDL that lost one is run. */
const DEADLOCK_DETECTED = '40P01';
const DDL_ATTEMPTS = 5;

/** A table range-partitioned by week on a prefixed ULID column (partitions.rules.ts). */
export interface PartitionedTable {
  table: string;
  /** The prefix of the ids in the partition key (`evt` for the events' id and the delivery keys' event_id). */
  idPrefix: string;
}

/**
 * Creates the partitions of `table` for ids minted in [from, to] that do not exist yet; returns the
 * names created. Idempotent (deterministic names, IF NOT EXISTS). Each is its own short statement: it
 * briefly locks the parent and checks the default partition holds no row of its range.
 */
export async function createPartitions(db: Queryable, t: PartitionedTable, from: Date, to: Date): Promise<string[]> {
  const existing = new Set(await partitionNames(db, t.table));
  const created: string[] = [];
  for (const span of partitionsCovering(t.table, from, to)) {
    if (existing.has(span.name)) continue;
    const sql = `CREATE TABLE IF NOT EXISTS "${span.name}" PARTITION OF "${t.table}"
         FOR VALUES FROM ('${idBoundAt(t.idPrefix, span.start)}') TO ('${idBoundAt(t.idPrefix, span.end)}')`;
    // Attaching locks the parent and the default partition in the opposite order to a concurrent insert,
    // so PostgreSQL may pick the DDL as a deadlock's victim: the insert goes on, the DDL tries again.
    for (let attempt = 1; ; attempt++) {
      try {
        await db.query(sql);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt === DDL_ATTEMPTS) throw error;
      }
    }
    created.push(span.name);
  }
  return created;
}

/** The default partition, created with the table, catches any id outside the ranges so an insert never fails. */
export async function createDefaultPartition(db: Queryable, t: PartitionedTable): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS "${defaultPartitionName(t.table)}" PARTITION OF "${t.table}" DEFAULT`);
}

/**
 * Retention: drops the partitions of `table` whose whole range is older than `cutoff`, oldest first,
 * each in its own transaction that waits at most `lockTimeoutMs` for its lock (a long reader of the
 * table makes it give up until the next run rather than queue every writer behind it). Returns the
 * partitions dropped.
 */
export async function dropPartitionsBefore(
  dataSource: DataSource,
  t: PartitionedTable,
  cutoff: Date,
  lockTimeoutMs = 5_000,
): Promise<PartitionSpan[]> {
  const expired = expiredPartitions(t.table, await partitionNames(dataSource, t.table), cutoff);
  for (const span of expired) {
    await dataSource.transaction(async (manager) => {
      // SET LOCAL: transaction-scoped, safe behind a pooler.
      await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${lockTimeoutMs}ms`]);
      await manager.query(`DROP TABLE IF EXISTS "${span.name}"`);
    });
  }
  return expired;
}

/**
 * Retention of the default partition (empty in normal operation): deletes one batch of its rows whose
 * key was minted before `cutoff`; returns the count.
 */
export async function deleteDefaultRowsBefore(
  db: Queryable,
  t: PartitionedTable,
  key: string,
  cutoff: Date,
  batch: number,
): Promise<number> {
  const name = defaultPartitionName(t.table);
  const result: [unknown[], number] = await db.query(
    `DELETE FROM "${name}" WHERE ctid = ANY (ARRAY(SELECT ctid FROM "${name}" WHERE ${key} < $1 LIMIT $2))`,
    [idBoundAt(t.idPrefix, cutoff), batch],
  );
  return result[1];
}

/** The partitions of `table` as they are now (names). */
export async function partitionNames(db: Queryable, table: string): Promise<string[]> {
  const rows: Array<{ name: string }> = await db.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)`,
    [table],
  );
  return rows.map((r) => r.name);
}
