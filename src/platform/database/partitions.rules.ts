/**
 * Time partitions of the tables that grow with every write and are kept for a retention period (the
 * event log, the webhook deliveries): PostgreSQL range partitions on a prefixed ULID column, one per
 * week. A ULID begins with its time (10 Crockford base-32 characters, which sort like the time in
 * the "C" collation), so the partition of an id follows from the id alone: a lookup by id is pruned to
 * one partition, and a week's rows go at once with its partition.
 */

const DAY_MS = 24 * 3600 * 1000;
/** A partition spans a week, Monday 00:00 UTC to the next Monday (1970-01-05 was a Monday). */
export const PARTITION_SPAN_MS = 7 * DAY_MS;
const FIRST_MONDAY_MS = 4 * DAY_MS;
/** How far ahead partitions exist: the upkeep task keeps this many weeks ready, the migration creates them too. */
export const PARTITIONS_AHEAD_MS = 4 * PARTITION_SPAN_MS;

/** One partition of a table: its name and the id range it holds, [from, to). */
export interface PartitionSpan {
  name: string;
  start: Date;
  end: Date;
}

/** The start of the span holding `at`. */
export function spanStart(at: Date): Date {
  const offset = at.getTime() - FIRST_MONDAY_MS;
  return new Date(Math.floor(offset / PARTITION_SPAN_MS) * PARTITION_SPAN_MS + FIRST_MONDAY_MS);
}

/** The partition of `table` that starts at `start` (a span start): `<table>_p<yyyymmdd>`. */
export function partitionAt(table: string, start: Date): PartitionSpan {
  const day = start.toISOString().slice(0, 10).replaceAll('-', '');
  return { name: `${table}_p${day}`, start, end: new Date(start.getTime() + PARTITION_SPAN_MS) };
}

/** Every partition of `table` needed to hold ids minted in [from, to], oldest first. */
export function partitionsCovering(table: string, from: Date, to: Date): PartitionSpan[] {
  const spans: PartitionSpan[] = [];
  for (let start = spanStart(from); start.getTime() <= to.getTime(); start = new Date(start.getTime() + PARTITION_SPAN_MS)) {
    spans.push(partitionAt(table, start));
  }
  return spans;
}

/** The span a partition's name stands for, or undefined for another name (the default partition, a stray table). */
export function parsePartitionName(table: string, name: string): PartitionSpan | undefined {
  const match = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  if (!match) return undefined;
  const start = new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`);
  if (Number.isNaN(start.getTime()) || spanStart(start).getTime() !== start.getTime()) return undefined;
  return partitionAt(table, start);
}

/**
 * Partitions that retention drops: every row they hold is older than `cutoff` (their span ended by
 * then). A week's rows are therefore kept between the retention period and a week more.
 */
export function expiredPartitions(table: string, names: string[], cutoff: Date): PartitionSpan[] {
  return names
    .map((name) => parsePartitionName(table, name))
    .filter((span): span is PartitionSpan => span !== undefined && span.end.getTime() <= cutoff.getTime())
    .sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** The default partition of `table`: ids outside every range (none in normal operation) land there, so an insert never fails. */
export function defaultPartitionName(table: string): string {
  return `${table}_default`;
}
