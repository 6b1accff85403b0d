import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export type AuditAction = 'key.created' | 'key.revoked';

export interface AuditEntry {
  at: Date;
  action: AuditAction;
  apiKeyId: string;
  label: string | null;
  sessionId: string;
}

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
    return this.dataSource.query(
      `SELECT at, action, api_key_id AS "apiKeyId", label, session_id AS "sessionId"
         FROM console_audit WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
      [accountId, limit],
    );
  }
}
