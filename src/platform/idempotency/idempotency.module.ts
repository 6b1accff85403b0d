import { Global, Module } from '@nestjs/common';
import { IdempotencyStore } from './idempotency.store';

/** The Idempotency-Key records: claimed by the HTTP interceptor, completed by UnitOfWork, pruned by retention. */
@Global()
@Module({ providers: [IdempotencyStore], exports: [IdempotencyStore] })
export class IdempotencyModule {}
