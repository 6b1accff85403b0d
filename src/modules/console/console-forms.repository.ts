import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { returnedRows } from '../../platform/database/query-result';
import { CONSOLE_LIMITS } from './console.rules';

export type NoteKind = 'apiKey' | 'signingSecret';

export interface StoredNote {
  kind: NoteKind;
  subjectId: string;
  sealed: string;
}

/**
 * Forms' one-post tokens and shown-once notes (plain statements: PgBouncer-safe). Both are scoped by the
 * account (it leads their keys) and by the session that made them.
 */
@Injectable()
export class ConsoleFormsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Claims the token for this post: true for the first post of it, false when it was posted before. */
  async claim(accountId: string, sessionId: string, token: string): Promise<boolean> {
    // Tokens outlive no session: older claims go first (the index on created_at keeps this cheap).
    await this.dataSource.query(
      `DELETE FROM console_form_posts WHERE created_at < now() - make_interval(hours => ${CONSOLE_LIMITS.absoluteHours})`,
    );
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO console_form_posts (account_id, token, session_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING token`,
      [accountId, token, sessionId],
    );
    return rows.length === 1;
  }

  /** Where the first post of the token sent its result; null while it runs, undefined when no post holds it. */
  async resultOf(accountId: string, token: string): Promise<string | null | undefined> {
    const [row]: Array<{ result_path: string | null }> = await this.dataSource.query(
      `SELECT result_path FROM console_form_posts WHERE account_id = $1 AND token = $2`,
      [accountId, token],
    );
    return row ? row.result_path : undefined;
  }

  async finish(accountId: string, token: string, resultPath: string): Promise<void> {
    await this.dataSource.query(`UPDATE console_form_posts SET result_path = $3 WHERE account_id = $1 AND token = $2`, [
      accountId,
      token,
      resultPath,
    ]);
  }

  /** The post failed (nothing was done): the token may be posted again. */
  async release(accountId: string, token: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM console_form_posts WHERE account_id = $1 AND token = $2 AND result_path IS NULL`, [
      accountId,
      token,
    ]);
  }

  async insertNote(note: StoredNote & { accountId: string; id: string; sessionId: string; expiresAt: Date }): Promise<void> {
    // Notes nobody opened in time go when the next one is kept: their sealed values do not linger.
    await this.dataSource.query(`DELETE FROM console_notes WHERE expires_at < now()`);
    await this.dataSource.query(
      `INSERT INTO console_notes (account_id, id, session_id, kind, subject_id, sealed, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [note.accountId, note.id, note.sessionId, note.kind, note.subjectId, note.sealed, note.expiresAt],
    );
  }

  /** The note, deleted as it is read: one statement, so two readers cannot both get it. */
  async takeNote(
    accountId: string,
    sessionId: string,
    id: string,
    expected: { kind: NoteKind; subjectId?: string },
  ): Promise<StoredNote | undefined> {
    const result: unknown = await this.dataSource.query(
      `DELETE FROM console_notes
        WHERE account_id = $1 AND id = $2 AND session_id = $3 AND kind = $4 AND ($5::text IS NULL OR subject_id = $5)
          AND expires_at > now()
        RETURNING kind, subject_id AS "subjectId", sealed`,
      [accountId, id, sessionId, expected.kind, expected.subjectId ?? null],
    );
    return returnedRows<StoredNote>(result)[0];
  }
}
