import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { Sql } from '../../platform/database/sql';
import { HealthService } from './health.service';

@Module({ controllers: [HealthController], providers: [HealthService, Sql] })
export class HealthModule {}
