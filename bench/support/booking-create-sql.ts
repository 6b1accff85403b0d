/*
 * What POST /v1/bookings sends to PostgreSQL (BookingsService.create, the scheduling automation on, no
 * Idempotency-Key), statement by statement and parameterised as the API sends them. S3 runs the same
 * statements twice beside the API: through pgbench (the goal's baseline) and through the raw Express
 * server (what Node itself can do with them, without the framework).
 */

/** The request's key lookup (AuthService.findKey), before its transaction. */
export const FIND_KEY = `SELECT k.id AS "apiKeyId", k.account_id AS "accountId", k.last_used_at AS "lastUsedAt", a.plan,
                                a.subscription_status AS "subscriptionStatus"
                           FROM api_keys k JOIN accounts a ON a.id = k.account_id
                          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

const BOOKING_COLUMNS =
  'id, account_id, property_id, source_booking_id, status, start_date, end_date, title, number_of_guests, guest_details, tags, other_attributes, created_at, updated_at';
const REMINDER_COLUMNS =
  'id, account_id, property_id, title, date, source_booking_id, source_id, actionable, checklist_ids, job_request_settings, automatic, fired_at, created_at, updated_at';

/** The create's transaction, between BEGIN and COMMIT, in order (`event` runs twice: booking.create, then reminder.create). */
export const CREATE_STATEMENTS = {
  /** $1 account, $2 property. */
  property: 'SELECT id, source_id, disable_reminders_automation FROM properties WHERE account_id = $1 AND id = $2 FOR KEY SHARE',
  /** $1 id, $2 account, $3 property, $4 sourceBookingId, $5 start, $6 end, $7 guests, $8 guestDetails, $9 tags. */
  booking: `INSERT INTO bookings (id, account_id, property_id, source_booking_id, status, start_date, end_date, title, number_of_guests,
                                  guest_details, tags, other_attributes)
            VALUES ($1, $2, $3, $4, 1, $5, $6, NULL, $7, $8, $9, NULL)
            ON CONFLICT (account_id, source_booking_id) DO NOTHING RETURNING ${BOOKING_COLUMNS}`,
  /** $1 id, $2 account, $3 event name, $4 request id, $5 results. */
  event: `INSERT INTO events (id, account_id, event_name, client_request_id, api_request_id, results)
          VALUES ($1, $2, $3, $4, $4, $5) RETURNING created_at`,
  /** $1 id, $2 account, $3 property, $4 title, $5 date, $6 sourceBookingId. */
  reminder: `INSERT INTO reminders (id, account_id, property_id, title, date, source_booking_id, source_id, actionable, checklist_ids,
                                    job_request_settings, automatic)
             VALUES ($1, $2, $3, $4, $5, $6, NULL, true, '{}', NULL, true) RETURNING ${REMINDER_COLUMNS}`,
} as const;

/** A statement with its parameters replaced by pgbench expressions (`:name` variables become parameters under -M prepared). */
function bind(sql: string, expressions: string[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => expressions[Number(n) - 1]).replace(/\s+/g, ' ') + ';';
}

/**
 * The create as a pgbench script: `:r` makes each transaction's ids unique; `:key_hash`, `:acct`,
 * `:prop`, `:start`, `:end`, `:guests`, `:tags`, `:booking_event` and `:reminder_event` are set with
 * -D (the event results are a real create's, passed as variables: pgbench would read their colons).
 */
export function pgbenchScript(): string {
  const id = (prefix: string) => `'${prefix}_pgb_' || :r`;
  const source = `'pgb-' || :r`;
  return [
    '\\set r random(1, 9000000000000000000)',
    bind(FIND_KEY, [':key_hash']),
    'BEGIN;',
    bind(CREATE_STATEMENTS.property, [':acct', ':prop']),
    bind(CREATE_STATEMENTS.booking, [id('bk'), ':acct', ':prop', source, ':start', ':end', '2', ':guests', ':tags']),
    bind(CREATE_STATEMENTS.event, [id('evt'), ':acct', `'booking.create'`, `'req_pgbench'`, ':booking_event']),
    bind(CREATE_STATEMENTS.reminder, [id('rem'), ':acct', ':prop', `'Turnover after booking pgb-' || :r`, ':end', source]),
    bind(CREATE_STATEMENTS.event, [id('evtr'), ':acct', `'reminder.create'`, `'req_pgbench'`, ':reminder_event']),
    'COMMIT;',
  ].join('\n');
}
