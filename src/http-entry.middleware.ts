import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { ApiKeyGuard } from './modules/auth/api-key.guard';
import { RoutePlans } from './modules/auth/route-plans';
import { readJsonBody } from './platform/http/json-body.middleware';
import { ApiRequest } from './platform/http/request-context';
import { assignRequestId } from './platform/http/request-id';

/**
 * The one middleware every request passes (after the request logger, when logs are on): the request id,
 * then the key check for a route whose plan says it needs one, then the JSON body. Checking the key here,
 * before the body is read and before Express's remaining layers and Nest's pipeline run, is what lets
 * the API refuse a flood of missing or invalid keys cheaply (a refusal costs the key check and the problem
 * document, nothing else); the answer is the guard's own (ApiKeyGuard.authenticate), rendered by the same
 * ProblemFilter, with the same headers, request id, log line and metrics. The account console posts
 * HTML forms, which its own middleware reads (ConsoleHttpModule), so its bodies are left unread here.
 */
@Injectable()
export class EntryMiddleware implements NestMiddleware {
  constructor(
    private readonly plans: RoutePlans,
    private readonly keys: ApiKeyGuard,
  ) {}

  async use(req: ApiRequest, res: Response, next: NextFunction): Promise<void> {
    assignRequestId(req, res);
    const planned = this.plans.find(req);
    // Legacy routes first pass their own middleware (LegacyDeprecationMiddleware: its headers on every answer,
    // and from the sunset a 410 that checks no key), which Nest mounts after this one, and a test-mode-only
    // route answers a live key with the 404 of a route that does not exist, which names the path as routed:
    // the guard checks both kinds, in Nest's pipeline, as before.
    const early = planned && !planned.plan.isPublic && !planned.plan.legacy && !planned.plan.testModeOnly;
    if (early) {
      try {
        await this.keys.authenticate(req, res, planned.plan);
      } catch (error) {
        // Routing stops here: the route Express would have matched names the request in its log line and metrics.
        req.route = planned.route;
        throw error;
      }
    }
    if (isConsolePath(req.originalUrl)) return next();
    readJsonBody(req, res, next);
  }
}

/** /console and below, as the middleware's exclusion matched them (Express paths are case-insensitive). */
function isConsolePath(url: string): boolean {
  return url.slice(0, 8).toLowerCase() === '/console' && (url.length === 8 || url[8] === '/' || url[8] === '?');
}
