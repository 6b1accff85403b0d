import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '../../platform/errors/domain-error';
import { returnedRows } from '../../platform/database/query-result';
import type { TenantTable } from '../../platform/database/tenant-tables';
import { IDEMPOTENCY_TENANT_TABLES } from '../../platform/idempotency/idempotency-tenant.rules';
import { DECLARATIONS, Declarations } from '../../platform/modules/module-declaration';
import { BLOB_STORE, BlobStore } from '../../platform/storage/blob-store';
import { AccountsService } from '../auth/accounts.service';
import { deletionOrder, ForeignKey, RESET_BATCH_ROWS } from './sandbox.rules';

export interface SandboxReset {
  accountId: string;
  /** The sandbox cleared; null when the account has never used test mode (nothing to clear). */
  sandboxAccountId: string | null;
  /** Rows deleted, per table. */
  deleted: Record<string, number>;
}

// Declared constraints only (a partition's copy of its parent's key has conparentid set).
const FOREIGN_KEYS = `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
                        FROM pg_constraint WHERE contype = 'f' AND conparentid = 0`;

/**
 * Clears an account's sandbox (docs/test-mode.md "Clearing it"): every tenant table's rows of the sandbox (each
 * module's `tenantTables` in its declaration, and the platform's idempotency records),
 * children before parents, in batches of RESET_BATCH_ROWS, each its own short transaction, so a large sandbox
 * holds no long locks. Live data is another account's rows, so untouched; test keys (the live account's) stay.
 */
@Injectable()
export class SandboxResetService {
  private readonly logger = new Logger(SandboxResetService.name);
  /** What a sandbox's data is. Not in it: api_keys (test keys are the live account's, kept) and the console's tables (the live account's). */
  readonly tables: readonly TenantTable[];

  constructor(
    @Inject(DECLARATIONS) declarations: Declarations,
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {
    this.tables = [...IDEMPOTENCY_TENANT_TABLES, ...declarations.tenantTables];
  }

  async reset(liveAccountId: string): Promise<SandboxReset> {
    const account = await this.accounts.findAccount(liveAccountId);
    if (!account || account.liveAccountId) throw new NotFoundError('Account', liveAccountId);
    const sandboxAccountId = (await this.accounts.sandboxOf(liveAccountId)) ?? null;
    const deleted: Record<string, number> = Object.fromEntries(this.tables.map((t) => [t.table, 0]));
    if (sandboxAccountId) {
      const foreignKeys = await this.dataSource.query<ForeignKey[]>(FOREIGN_KEYS);
      for (const table of deletionOrder(this.tables, foreignKeys)) deleted[table.table] = await this.clear(table, sandboxAccountId);
    }
    return { accountId: liveAccountId, sandboxAccountId, deleted };
  }

  private async clear(table: TenantTable, sandboxAccountId: string): Promise<number> {
    const key = (table.key ?? ['id']).join(', ');
    const returning = table.blobKey ? `${table.blobKey} AS "blobKey"` : '1 AS one';
    let total = 0;
    for (;;) {
      const rows = returnedRows<{ blobKey?: string }>(
        await this.dataSource.query(
          `DELETE FROM ${table.table} WHERE (${key}) IN (SELECT ${key} FROM ${table.table} WHERE account_id = $1 LIMIT ${RESET_BATCH_ROWS})
           RETURNING ${returning}`,
          [sandboxAccountId],
        ),
      );
      total += rows.length;
      // Best effort, after the rows are gone: a leftover blob is only wasted space.
      for (const { blobKey } of rows) {
        if (blobKey)
          await this.blobs.delete(blobKey).catch((e: Error) => this.logger.warn(`could not delete blob ${blobKey}: ${e.message}`));
      }
      if (rows.length < RESET_BATCH_ROWS) return total;
    }
  }
}
