import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from '../http/idempotency.interceptor';
import { IdempotencyStore } from '../http/idempotency.store';
import { UnitOfWork } from './unit-of-work';

/** Transaction and idempotency plumbing every module's services use. */
@Global()
@Module({
  providers: [UnitOfWork, IdempotencyStore, IdempotencyInterceptor],
  exports: [UnitOfWork, IdempotencyStore, IdempotencyInterceptor],
})
export class PlatformDatabaseModule {}
