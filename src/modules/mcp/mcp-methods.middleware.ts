import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { MCP_PATH } from './mcp-tools.service';

/**
 * GET and DELETE /v1/mcp: 405 with `Allow: POST`, as MCP's Streamable HTTP transport says a server without
 * a server-to-client stream (GET) or sessions to end (DELETE) answers; the SDK's client takes the GET's 405
 * as "no stream". A middleware, not routes: they are no operation of the API (nor of its OpenAPI document).
 */
@Injectable()
export class McpMethodsMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    // originalUrl: under a `use` mount, req.path is relative to the mount point.
    if (req.method === 'POST' || req.originalUrl.split('?')[0] !== MCP_PATH) return next();
    res.setHeader('Allow', 'POST');
    // Thrown, not passed to next(): Nest's exception handling (the ProblemFilter) catches what middleware throws.
    throw new DomainError(
      'method_not_allowed',
      'methodNotAllowed',
      `${req.method} ${MCP_PATH} is not served: the MCP endpoint is stateless (no server-to-client stream, no sessions); POST each message`,
    );
  }
}
