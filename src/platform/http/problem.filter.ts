import { ArgumentsHost, Catch, ExceptionFilter, Inject, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../config/config.module';
import { AppConfig } from '../../config/config';
import { DatabaseOutages } from '../database/database-outages';
import { buildProblem, PROBLEM_CONTENT_TYPE } from './problem';
import { ProblemRenderer } from './problem-renderer';
import { assignRequestId } from './request-id';
import { RouteMethods } from './route-methods';

/**
 * The one place that turns any error, ours or the framework's, into a problem
 * document. The database being unreachable is a 503 with Retry-After; other unexpected
 * errors become a bare 500: the stack goes to the log, never to the client. A path no route
 * serves with the request's method is a 405 with Allow when other methods serve it (RouteMethods).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly renderer: ProblemRenderer;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    databaseOutages: DatabaseOutages,
    private readonly routeMethods: RouteMethods,
  ) {
    this.renderer = new ProblemRenderer(databaseOutages);
  }

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    // No route for the method: a 405 where the path is a route's with other methods.
    if (error instanceof NotFoundException) error = this.routeMethods.refusal(req.method, req.path) ?? error;
    const rendered = this.renderer.render(error, req);

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
}
