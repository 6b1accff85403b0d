import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

function violates(error: unknown, code: string, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === code && driverError.constraint === constraint;
}

/**
 * True when `error` is PostgreSQL's unique violation (23505) on `constraint`.
 * Services pre-check uniqueness for a friendly answer, and catch this for the race
 * two concurrent requests can still win against the pre-check.
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return violates(error, '23505', constraint);
}

/**
 * True when `error` is PostgreSQL's foreign key violation (23503) on `constraint`: the row the
 * insert names was deleted after the service found it (a race with a delete), which the caller
 * answers as that row's 404.
 */
export function isForeignKeyViolation(error: unknown, constraint: string): boolean {
  return violates(error, '23503', constraint);
}

/** SQLSTATEs of a transaction rolled back for colliding with a concurrent one: deadlock_detected, serialization_failure. */
const TRANSACTION_CONFLICT_SQLSTATES = new Set(['40P01', '40001']);

/**
 * True when `error` says PostgreSQL rolled the transaction back for colliding with a concurrent one (it
 * was chosen as a deadlock's victim, or could not be serialized): nothing of it committed, and the same
 * work run again may well succeed (UnitOfWork does, a few times; past that the answer is a retryable 503).
 */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  return TRANSACTION_CONFLICT_SQLSTATES.has((error.driverError as { code?: string } | undefined)?.code ?? '');
}

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01-57P03
 * (terminated by an administrator or a crash shutdown, cannot connect now: starting up or shutting
 * down) and 53300 (too many connections: a restart's reconnect storm). A serialization failure
 * (40001) or a lock time-out is not an outage: the server answered.
 */
const UNAVAILABLE_SQLSTATES = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** Socket errors of a server that is down, restarting or unreachable. */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** node-postgres and its pool say these without a code: a connection that ended, or none within the bound. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Connection terminated',
];

/**
 * True when `error` says PostgreSQL could not be reached or went away (a restart, a failover, a pool
 * that could not connect within its bound), rather than that the statement was wrong: the request may
 * be retried as it is. TypeORM wraps the driver's error (`driverError`); Node wraps some in `cause`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // TypeORM releases a query runner when its connection reports an error: the transaction's next
  // statement then meets a released runner, the consequence of the connection lost under it.
  if (error instanceof QueryRunnerAlreadyReleasedError || error instanceof QueryRunnerProviderAlreadyReleasedError) return true;
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
    if (UNAVAILABLE_MESSAGES.includes(current.message)) return true;
    current = current instanceof QueryFailedError ? (current.driverError as unknown) : (current as { cause?: unknown }).cause;
  }
  return false;
}
