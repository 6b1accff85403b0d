import { Global, Module } from '@nestjs/common';
import { UnitOfWork } from './unit-of-work';

/** The transaction plumbing every module's services use. */
@Global()
@Module({ providers: [UnitOfWork], exports: [UnitOfWork] })
export class PlatformDatabaseModule {}
