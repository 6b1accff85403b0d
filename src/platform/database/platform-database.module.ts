import { Global, Module } from '@nestjs/common';
import { DatabaseOutages } from './database-outages';
import { UnitOfWork } from './unit-of-work';

/** The transaction plumbing every module's services use, and the process's view of database outages. */
@Global()
@Module({ providers: [UnitOfWork, DatabaseOutages], exports: [UnitOfWork, DatabaseOutages] })
export class PlatformDatabaseModule {}
