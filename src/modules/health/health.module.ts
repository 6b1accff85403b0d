import { Module } from '@nestjs/common';
import { Sql } from '../../platform/database/sql';
import { HealthService } from './health.service';

/** Whether PostgreSQL and Redis answer; its route is HealthHttpModule's. */
@Module({ providers: [HealthService, Sql], exports: [HealthService] })
export class HealthModule {}
