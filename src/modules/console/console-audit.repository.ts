import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';

export type AuditAction = 'key.created' | 'key.revoked';

export interface AuditEntry {
  at: Date;
  action: AuditAction;
  apiKeyId: string;
  label: string | null;
  sessionId: string;
}

const AUDIT_COLUMNS = columns<AuditEntry>({ at: 'at', action: 'action', apiKeyId: 'api_key_id', label: 'label', sessionId: 'session_id' });

/** The audit list of the keys page: what was done to which key, when, from which console session. */
@Injectable()
export class ConsoleAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, accountId: string, entry: Omit<AuditEntry, 'at'>): Promise<void> {
    await manager.query(`INSERT INTO console_audit (account_id, action, api_key_id, label, session_id) VALUES ($1, $2, $3, $4, $5)`, [
      accountId,
      entry.action,
      entry.apiKeyId,
      entry.label,
      entry.sessionId,
    ]);
  }

  async latest(accountId: string, limit: number): Promise<AuditEntry[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${AUDIT_COLUMNS.all} FROM console_audit WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map(AUDIT_COLUMNS.toEntity);
  }
}
