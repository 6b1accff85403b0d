import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { LegacyBatchesRepository } from './legacy-batches.repository';
import { LegacyBatchesService } from './legacy-batches.service';
import { LegacyQueueModule } from './legacy-queue.module';

/**
 * The legacy batched API on the API side: batches acknowledged into the durable queue and their status.
 * Its routes and the legacy webhook are LegacyHttpModule; the worker side (processing, sweep, retirement) is LegacyWorkerModule.
 */
@Module({
  imports: [WebhooksModule, LegacyQueueModule],
  providers: [LegacyBatchesService, LegacyBatchesRepository],
  exports: [LegacyBatchesService],
})
export class LegacyModule {}
