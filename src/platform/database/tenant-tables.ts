/**
 * A table whose rows belong to one account (its `account_id`), as the module that owns it declares it (its
 * `<module>.declaration.ts`, `tenantTables`): what clearing an account's sandbox deletes. The order of
 * deletion is not declared: it comes from the foreign keys (SandboxResetService).
 */
export interface TenantTable {
  table: string;
  /** The columns that name one row (default `id`): batches are picked by them. */
  key?: readonly string[];
  /** A column naming a stored blob (BlobStore key) that goes with the row. */
  blobKey?: string;
}
