import { HttpException, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DatabaseOutages, DatabaseUnavailableError } from '../database/database-outages';
import { isTransactionConflict } from '../database/pg-errors';
import { TRANSACTION_CONFLICT_RETRY_AFTER_SECONDS } from '../database/transaction-retry.rules';
import { DomainError } from '../errors/domain-error';
import { ProblemInput, STATUS_BY_KIND } from './problem';

export type Rendered = Omit<ProblemInput, 'instance' | 'requestId'> & { headers?: Record<string, string> };

/**
 * PostgreSQL text cannot hold U+0000: a NUL in a path id or a body string fails the
 * query (22021 in text, 22P05 in jsonb). That is the client's input, so a 400, not a 500.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);
/**
 * A foreign key violation that no service mapped to its own answer, raised by a write naming a row
 * that is not there (PostgreSQL's detail: "… is not present in table …"): a row this request refers
 * to was deleted by a concurrent request after the request found it. Its state collided with another
 * request's, so a 409 the client can act on (read again, retry), not a 500. The other kind, a delete
 * of a row still referenced, is a bug of ours and stays a 500.
 */
const FOREIGN_KEY_VIOLATION = '23503';
const MISSING_REFERENCED_ROW = /is not present in table/;

/**
 * A transaction PostgreSQL rolled back for colliding with concurrent ones (a deadlock's victim, a
 * serialization failure) on each of its tries (UnitOfWork), or a lone statement that lost one: nothing
 * committed and the same request may be sent again as it is, so a retryable 503 (what clients and the
 * SDK retry), not a 500, nor a 409 (which says the request collides with the resource's state).
 */
const TRANSACTION_CONFLICT: Rendered = {
  status: 503,
  code: 'serviceUnavailable',
  detail:
    `The request kept colliding with concurrent ones and was rolled back, nothing changed; retry after ` +
    `${TRANSACTION_CONFLICT_RETRY_AFTER_SECONDS} s (a create with the same Idempotency-Key)`,
  headers: { 'Retry-After': String(TRANSACTION_CONFLICT_RETRY_AFTER_SECONDS) },
};

const INTERNAL: Rendered = {
  status: 500,
  code: 'internal',
  detail: 'The server failed to complete the request; the failure has been logged',
};

/**
 * Any error, ours or the framework's, as what its problem document says (status, code, detail, extras,
 * headers): the database being unreachable, or a transaction losing to concurrent ones on every try, is
 * a 503 with Retry-After; other unexpected errors become a
 * bare 500, the stack to the log, never to the client. The HTTP filter renders every response's
 * problem with it, and the MCP tools their tool errors, so both say the same thing of the same error.
 */
export class ProblemRenderer {
  private readonly logger = new Logger('ProblemFilter');

  constructor(private readonly databaseOutages: DatabaseOutages) {}

  render(error: unknown, req: { method: string; path: string }): Rendered {
    // Logged once per outage (DatabaseOutages), not a stack per request: the client may retry as it is.
    if (this.databaseOutages.noted(error)) error = new DatabaseUnavailableError();
    if (error instanceof DomainError) {
      return { status: STATUS_BY_KIND[error.kind], code: error.code, detail: error.message, extras: error.extras, headers: error.headers };
    }
    if (error instanceof HttpException && error.getStatus() < 500) {
      const status = error.getStatus();
      if (status === 404) return { status, code: 'notFound', detail: `No route matches ${req.method} ${req.path}` };
      // Express maps a malformed percent-encoding in the path to a 400 URIError.
      return { status, code: status === 400 ? 'badRequest' : 'httpError', detail: error.message };
    }
    const driverError = error instanceof QueryFailedError ? (error.driverError as { code?: string; detail?: string }) : undefined;
    const sqlState = driverError?.code ?? '';
    if (UNSTORABLE_TEXT_CODES.has(sqlState)) {
      return { status: 400, code: 'invalidCharacters', detail: 'The request contains a character that cannot be stored (such as U+0000)' };
    }
    if (sqlState === FOREIGN_KEY_VIOLATION && MISSING_REFERENCED_ROW.test(driverError?.detail ?? '')) {
      this.logger.warn(`a foreign key violation reached the filter (a race with a delete): ${(error as Error).message}`);
      return {
        status: 409,
        code: 'conflict',
        detail: 'A resource this request refers to was deleted by another request meanwhile; read it again before retrying',
      };
    }
    if (isTransactionConflict(error)) {
      this.logger.warn(`a transaction lost every try to concurrent ones: ${(error as Error).message}`);
      return TRANSACTION_CONFLICT;
    }
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return INTERNAL;
  }
}
