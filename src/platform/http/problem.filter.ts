import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import { AppConfig } from '../../config/config';
import { DatabaseOutages, DatabaseUnavailableError } from '../database/database-outages';
import { DomainError } from '../errors/domain-error';
import { buildProblem, PROBLEM_CONTENT_TYPE, ProblemInput, STATUS_BY_KIND } from './problem';
import { assignRequestId } from './request-id';

type Rendered = Omit<ProblemInput, 'instance' | 'requestId'> & { headers?: Record<string, string> };

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

const INTERNAL: Rendered = {
  status: 500,
  code: 'internal',
  detail: 'The server failed to complete the request; the failure has been logged',
};

/**
 * The one place that turns any error, ours or the framework's, into a problem
 * document. The database being unreachable is a 503 with Retry-After; other unexpected
 * errors become a bare 500: the stack goes to the log, never to the client.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly databaseOutages: DatabaseOutages,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const rendered = this.render(error, req);

    if (res.headersSent) {
      res.end();
      return;
    }
    const problem = buildProblem(this.config.errorsBaseUrl, {
      ...rendered,
      instance: req.originalUrl.split('?')[0],
      requestId: assignRequestId(req, res),
    });
    for (const [name, value] of Object.entries(rendered.headers ?? {})) res.setHeader(name, value);
    res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
  }

  private render(error: unknown, req: Request): Rendered {
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
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return INTERNAL;
  }
}
