import { CallHandler, ExecutionContext, HttpStatus, Injectable, Logger, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { ValidationError } from '../errors/domain-error';
import { isValidIdempotencyKey, requestFingerprint } from './idempotency.rules';
import { IdempotencyClaim } from '../context/request-context';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import { ApiRequest } from './request-context';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Idempotency-Key for create routes (IETF httpapi draft, Stripe's practice): the
 * first completed response is replayed for 24 hours with `Idempotent-Replayed: true`;
 * the same key with another body is a 422, and while the first request still runs a 409.
 * The use case stores the response with Tx.respond, in the transaction that creates the resource.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

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
        return next.handle().pipe(
          mergeMap((response) => from(this.releaseUnanswered(claim, req).then(() => response))),
          catchError((error: unknown) => from(this.store.release(claim).then(() => Promise.reject(error)))),
        );
      }),
    );
  }

  /**
   * A use case that succeeded without Tx.respond stored nothing to replay: the claim is freed at
   * once (rather than blocking the key with 409s until it counts as abandoned) and the bug logged.
   * The client still gets its answer; a retry with the key would run the use case again.
   */
  private async releaseUnanswered(claim: IdempotencyClaim, req: ApiRequest): Promise<void> {
    try {
      if (await this.store.release(claim)) {
        this.logger.error(
          `${req.method} ${req.path} (request ${req.id}) succeeded without Tx.respond: no response stored for its Idempotency-Key`,
        );
      }
    } catch (error) {
      this.logger.warn(`could not check the Idempotency-Key claim after success: ${(error as Error).message}`);
    }
  }
}

/** Switches Idempotency-Key handling on for a create route. */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
