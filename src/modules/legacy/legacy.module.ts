import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { LegacyBatchesRepository } from './legacy-batches.repository';
import { LegacyBatchesService } from './legacy-batches.service';
import { LegacyController } from './legacy.controller';
import { LegacyDeprecationMiddleware } from './legacy-deprecation.middleware';
import { LegacyQueueModule } from './legacy-queue.module';

/**
 * The legacy batched API on the API side: batches acknowledged into the durable queue, their status,
 * the legacy webhook. The worker side (processing, sweep, retirement) is LegacyWorkerModule.
 */
@Module({
  imports: [WebhooksModule, LegacyQueueModule],
  controllers: [LegacyController],
  providers: [LegacyBatchesService, LegacyBatchesRepository],
})
export class LegacyModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(LegacyDeprecationMiddleware).forRoutes('legacy', 'legacy/*path');
  }
}
