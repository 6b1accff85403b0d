import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthModule } from './health.module';

/** GET /health over HealthModule. Only the app module imports it. */
@Module({ imports: [HealthModule], controllers: [HealthController] })
export class HealthHttpModule {}
