import { Module } from '@nestjs/common';
import { queueProvider } from '../../platform/queue/queue.provider';
import { LEGACY_BATCH_QUEUE, LegacyQueue } from './legacy-queue.service';

const queue = queueProvider(LEGACY_BATCH_QUEUE);

/** The legacy batch queue's producer (API); LegacyQueue closes it. The worker side is LegacyWorkerModule. */
@Module({
  providers: [queue, LegacyQueue],
  exports: [LegacyQueue, queue],
})
export class LegacyQueueModule {}
