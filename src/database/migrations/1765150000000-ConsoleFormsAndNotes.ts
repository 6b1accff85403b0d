import { ACCOUNT_ID, CREATED_AT, SqlMigration } from '../migration-sql';

/**
 * No console form creates twice (issue 34, docs/console.md "Forms"):
 * - `console_form_posts`: each form's one-post token, claimed by its first post, with where that post's
 *   result is shown (a repeat of the post is sent there); kept as long as a session lives at most.
 * - `console_notes`: a shown-once value (a new key, a signing secret) kept sealed for the one page that
 *   shows it, its session only, for minutes; deleted when shown.
 */
export class ConsoleFormsAndNotes1765150000000 extends SqlMigration {
  name = 'ConsoleFormsAndNotes1765150000000';

  protected readonly upSql = [
    `CREATE TABLE console_form_posts (
       ${ACCOUNT_ID},
       token text COLLATE "C" NOT NULL,
       session_id text COLLATE "C" NOT NULL,
       result_path text,
       ${CREATED_AT},
       PRIMARY KEY (account_id, token)
     )`,
    `CREATE INDEX console_form_posts_created_idx ON console_form_posts (created_at)`,
    `CREATE TABLE console_notes (
       ${ACCOUNT_ID},
       id text COLLATE "C" NOT NULL,
       session_id text COLLATE "C" NOT NULL,
       kind text NOT NULL CHECK (kind IN ('apiKey', 'signingSecret')),
       subject_id text COLLATE "C" NOT NULL,
       sealed text NOT NULL,
       expires_at timestamptz NOT NULL,
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE INDEX console_notes_expires_idx ON console_notes (expires_at)`,
  ];

  protected readonly downSql = [`DROP TABLE console_notes`, `DROP TABLE console_form_posts`];
}
