import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { columns, SelectedRow } from '../../platform/database/columns';
import { returnedRows } from '../../platform/database/query-result';
import { CONSOLE_LIMITS } from './console.rules';

export interface StoredLink {
  id: string;
  accountId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface ConsoleSession {
  id: string;
  accountId: string;
  csrfToken: string;
  createdAt: Date;
}

const LINK_COLUMNS = columns<StoredLink>({ id: 'id', accountId: 'account_id', expiresAt: 'expires_at', usedAt: 'used_at' });
const SESSION_COLUMNS = columns<ConsoleSession>({ id: 'id', accountId: 'account_id', csrfToken: 'csrf_token', createdAt: 'created_at' });

const IDLE = `make_interval(mins => ${CONSOLE_LIMITS.idleMinutes})`;
const ABSOLUTE = `make_interval(hours => ${CONSOLE_LIMITS.absoluteHours})`;

/** Sign-in links and sessions, found by the SHA-256 of their token (plain statements: PgBouncer-safe). */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertLink(link: { id: string; accountId: string; tokenHash: Buffer; expiresAt: Date }): Promise<void> {
    await this.dataSource.query(`INSERT INTO console_links (id, account_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`, [
      link.id,
      link.accountId,
      link.tokenHash,
      link.expiresAt,
    ]);
  }

  async findLink(tokenHash: Buffer): Promise<StoredLink | undefined> {
    const [row]: SelectedRow[] = await this.dataSource.query(`SELECT ${LINK_COLUMNS.all} FROM console_links WHERE token_hash = $1`, [
      tokenHash,
    ]);
    return row ? LINK_COLUMNS.toEntity(row) : undefined;
  }

  /**
   * Uses the link and opens its session in one statement: only one of two concurrent exchanges of a link
   * finds it unused, so a link starts one session at most. Undefined when the link is unknown, used or expired.
   */
  async exchange(tokenHash: Buffer, session: { id: string; tokenHash: Buffer; csrfToken: string }): Promise<ConsoleSession | undefined> {
    const [row]: SelectedRow[] = await this.dataSource.query(
      `WITH used AS (
         UPDATE console_links SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()
          RETURNING id, account_id)
       INSERT INTO console_sessions (id, account_id, link_id, token_hash, csrf_token)
       SELECT $2, account_id, id, $3, $4 FROM used
       RETURNING ${SESSION_COLUMNS.all}`,
      [tokenHash, session.id, session.tokenHash, session.csrfToken],
    );
    return row ? SESSION_COLUMNS.toEntity(row) : undefined;
  }

  /** The live session with this token, its idle clock restarted; undefined once idle, too old or ended. */
  async touch(tokenHash: Buffer): Promise<ConsoleSession | undefined> {
    const result: unknown = await this.dataSource.query(
      `UPDATE console_sessions SET last_seen_at = now()
        WHERE token_hash = $1 AND ended_at IS NULL AND last_seen_at > now() - ${IDLE} AND created_at > now() - ${ABSOLUTE}
        RETURNING ${SESSION_COLUMNS.all}`,
      [tokenHash],
    );
    const [row] = returnedRows<SelectedRow>(result);
    return row ? SESSION_COLUMNS.toEntity(row) : undefined;
  }

  async end(sessionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE console_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [sessionId]);
  }
}
