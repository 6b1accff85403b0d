import type { TenantTable } from '../../platform/database/tenant-tables';

/** Rows deleted per statement (each its own transaction) when a sandbox is cleared: short locks, however large the sandbox. */
export const RESET_BATCH_ROWS = 1000;

/** A foreign key between two tables, as PostgreSQL's catalogue lists it. */
export interface ForeignKey {
  child: string;
  parent: string;
}

/**
 * The tables in an order that deletes every row before the rows it references: a table comes after every
 * declared table with a foreign key into it. Keys to undeclared tables (accounts) and to itself do not count.
 */
export function deletionOrder(tables: readonly TenantTable[], foreignKeys: readonly ForeignKey[]): TenantTable[] {
  const declared = new Set(tables.map((t) => t.table));
  const children = new Map<string, Set<string>>();
  for (const { child, parent } of foreignKeys) {
    if (child === parent || !declared.has(child) || !declared.has(parent)) continue;
    children.set(parent, (children.get(parent) ?? new Set()).add(child));
  }
  const ordered: TenantTable[] = [];
  const done = new Set<string>();
  while (ordered.length < tables.length) {
    const next = tables.find((t) => !done.has(t.table) && [...(children.get(t.table) ?? [])].every((c) => done.has(c)));
    if (!next) throw new Error('the tenant tables reference each other in a cycle: no order deletes them');
    ordered.push(next);
    done.add(next.table);
  }
  return ordered;
}
