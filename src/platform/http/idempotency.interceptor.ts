import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { ValidationError } from '../errors/domain-error';
import { isValidIdempotencyKey, requestFingerprint } from './idempotency.rules';
import { IdempotencyStore } from './idempotency.store';
import { ApiRequest } from './request-context';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Idempotency-Key for create routes (IETF httpapi draft, Stripe's practice): the
 * first completed response is replayed for 24 hours with `Idempotent-Replayed: true`;
 * the same key with another body is a 422, and while the first request still runs a 409.
 * The use case stores the response through UnitOfWork, in the resource's transaction.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ApiRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !req.caller) return next.handle();
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      throw new ValidationError('The Idempotency-Key header must be 1-255 visible ASCII characters', [], 'invalidIdempotencyKey');
    }
    const accountId = req.caller.accountId;
    const fingerprint = requestFingerprint(req.method, req.path, req.body);

    return from(this.store.claim(accountId, key, fingerprint)).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'replay') {
          res.status(outcome.status).setHeader('Idempotent-Replayed', 'true');
          return of(outcome.body);
        }
        const responseStatus = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
        const claim = { accountId, key, lockToken: outcome.lockToken, responseStatus };
        req.idempotency = claim;
        return next.handle().pipe(catchError((error: unknown) => from(this.store.release(claim).then(() => Promise.reject(error)))));
      }),
    );
  }
}

/** Switches Idempotency-Key handling on for a create route. */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
