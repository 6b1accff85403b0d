import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Caller, IdempotencyClaim, RequestContext } from '../context/request-context';
import type { DomainError } from '../errors/domain-error';

/** The Express request as our guards, middleware and interceptors annotate it. */
export type ApiRequest = Request & {
  id: string;
  caller?: Caller;
  /** The key check passed (ApiKeyGuard.authenticate, run by the entry middleware or the guard). */
  keyChecked?: true;
  idempotency?: IdempotencyClaim;
  /** A body the JSON middleware could not read; answered after the guards (StrictRequestGuard). */
  bodyError?: DomainError;
  /** A multipart/form-data body the JSON middleware left unread, for a route that takes it (MultipartFile). */
  multipartPending?: boolean;
};

export function requestContextOf(req: ApiRequest): RequestContext {
  if (!req.caller) throw new Error('requestContextOf called on an unauthenticated route');
  return {
    accountId: req.caller.accountId,
    requestId: req.id,
    clientRequestId: req.idempotency?.key ?? `req_${req.id}`,
    idempotency: req.idempotency,
  };
}

/** `@Ctx() ctx: RequestContext` in a controller handler. */
export const Ctx = createParamDecorator((_data: unknown, host: ExecutionContext) =>
  requestContextOf(host.switchToHttp().getRequest<ApiRequest>()),
);

/**
 * The template of the controller route that served the request (`/v1/properties/:propertyId`), or
 * undefined when none did (no route matched). The request logger's middleware is mounted by Nest as a
 * catch-all route for every method (`/{*path}`), whose template stays in req.route until a controller
 * route, mounted for its one method, replaces it.
 */
export function routeTemplate(req: IncomingMessage): string | undefined {
  const route = (req as Partial<ApiRequest>).route as { path?: string; methods?: object } | undefined;
  return route?.methods && Object.keys(route.methods).length === 1 ? route.path : undefined;
}
