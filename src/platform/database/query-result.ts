/**
 * The rows a raw `manager.query` returned: TypeORM's PostgreSQL driver answers UPDATE and DELETE
 * with `[rows, rowCount]`, every other command (SELECT, INSERT … RETURNING) with the rows.
 */
export function returnedRows<Row>(result: unknown): Row[] {
  return Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as Row[]) : (result as Row[]);
}
