import { CallHandler, ExecutionContext, HttpStatus, Injectable, Logger, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { ValidationError } from '../errors/domain-error';
import { isValidIdempotencyKey, requestFingerprint } from './idempotency.rules';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import { runIdempotently } from '../idempotency/idempotent-run';
import { ApiRequest } from './request-context';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Idempotency-Key for create routes (IETF httpapi draft, Stripe's practice): the
 * first completed response is replayed for 24 hours with `Idempotent-Replayed: true`;
 * the same key with another body is a 422, and while the first request still runs a 409.
 * The use case stores the response with Tx.respond, in the transaction that creates the resource.
 * The protocol itself (claim, replay, release) is runIdempotently's, shared with the MCP tools.
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
    const request = {
      accountId: req.caller.accountId,
      key,
      fingerprint: requestFingerprint(req.method, req.path, req.body),
      responseStatus: this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED,
      describe: () => `${req.method} ${req.path} (request ${req.id})`,
    };
    const run = runIdempotently(this.store, this.logger, request, (claim) => {
      req.idempotency = claim;
      return lastValueFrom(next.handle());
    }).then((outcome) => {
      if (!outcome.replayed) return outcome.value;
      res.status(outcome.status).setHeader('Idempotent-Replayed', 'true');
      return outcome.body;
    });
    return from(run);
  }
}

/** Switches Idempotency-Key handling on for a create route. */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
