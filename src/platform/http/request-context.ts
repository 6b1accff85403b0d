import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { DomainError } from '../errors/domain-error';

/** Who is calling, set by the auth guard. */
export interface Caller {
  accountId: string;
  apiKeyId: string;
}

/** An Idempotency-Key the interceptor has claimed for this request. */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  lockToken: string;
  responseStatus: number;
}

/** What a use case needs to know about the request that started it; no HTTP types. */
export interface RequestContext {
  accountId: string;
  /** The request's x-request-id: the event envelope's apiRequestId. */
  requestId: string;
  /** The Idempotency-Key when sent, else a generated id: the event envelope's clientRequestId. */
  clientRequestId: string;
  idempotency?: IdempotencyClaim;
}

export type ApiRequest = Request & {
  id: string;
  caller?: Caller;
  idempotency?: IdempotencyClaim;
  /** A body the JSON middleware could not read; answered after the guards (StrictRequestInterceptor). */
  bodyError?: DomainError;
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
