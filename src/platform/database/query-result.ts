/**
 * The rows a raw `manager.query` returned: TypeORM's PostgreSQL driver answers UPDATE and DELETE
 * with `[rows, rowCount]`, every other command (SELECT, INSERT … RETURNING) with the rows.
 */
export function returnedRows<Row>(result: unknown): Row[] {
  return Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as Row[]) : (result as Row[]);
}

/** Rows in id order (a DELETE … RETURNING returns them in no order; their events are written in id order). */
export function inIdOrder<Row extends { id: string }>(rows: Row[]): Row[] {
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A statement's parameters, for SQL assembled from optional parts (a list's filters and keyset):
 * `add(value)` appends a value and returns its placeholder (`$5`), so numbering stays right.
 */
export class SqlParams {
  readonly values: unknown[];

  constructor(...first: unknown[]) {
    this.values = first;
  }

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
