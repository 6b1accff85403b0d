import { CallHandler, ExecutionContext, HttpStatus, Injectable, Logger, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { randomUUID } from 'node:crypto';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { ValidationError } from '../errors/domain-error';
import { isValidIdempotencyKey, requestFingerprint } from './idempotency.rules';
import { IdempotencyClaim } from '../context/request-context';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import { isDatabaseUnavailable } from '../database/pg-errors';
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
    const responseStatus = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const lockToken = randomUUID();
    // A claim whose INSERT went unanswered (the database went away) may be in place: freed once it is back.
    const claiming = this.store.claim(accountId, key, fingerprint, lockToken).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) this.store.releaseLater({ accountId, key, lockToken, responseStatus });
      throw error;
    });

    return from(claiming).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'replay') {
          res.status(outcome.status).setHeader('Idempotent-Replayed', 'true');
          return of(outcome.body);
        }
        const claim = { accountId, key, lockToken: outcome.lockToken, responseStatus };
        req.idempotency = claim;
        return next.handle().pipe(
          mergeMap((response) => from(this.releaseUnanswered(claim, req).then(() => response))),
          catchError((error: unknown) => from(this.releaseFailed(claim, error))),
        );
      }),
    );
  }

  /**
   * Frees the claim of a request that failed, then fails with the request's own error. While the
   * database is unreachable the release is left to IdempotencyStore.releaseLater: the request may even
   * have committed (its acknowledgement lost), and then its stored response stays for the retry.
   */
  private async releaseFailed(claim: IdempotencyClaim, error: unknown): Promise<never> {
    try {
      await this.store.release(claim);
    } catch (releaseError) {
      if (!isDatabaseUnavailable(releaseError)) throw releaseError;
      this.store.releaseLater(claim);
    }
    throw error;
  }

  /**
   * A use case that succeeded without Tx.respond stored nothing to replay: the claim is freed at
   * once (rather than blocking the key with 409s until it counts as abandoned) and the bug logged.
   * The client still gets its answer; a retry with the key would run the use case again.
   */
  private async releaseUnanswered(claim: IdempotencyClaim, req: ApiRequest): Promise<void> {
    // The usual case, known without a query (and a pool connection) of its own: the response is stored.
    if (claim.stored) return;
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
