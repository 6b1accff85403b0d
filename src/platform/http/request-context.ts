import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Caller, IdempotencyClaim, RequestContext } from '../context/request-context';
import type { DomainError } from '../errors/domain-error';

/** The Express request as our guards, middleware and interceptors annotate it. */
export type ApiRequest = Request & {
  id: string;
  caller?: Caller;
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
