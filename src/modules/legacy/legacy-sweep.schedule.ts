import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Scheduler } from '../../platform/scheduling/scheduler';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';

export const LEGACY_SWEEP_TASK = 'legacy-batch-sweep';

/**
 * The legacy batches' sweep on the worker's in-process scheduler (once per interval across workers):
 * batches whose job was lost or whose worker died, and past the sunset every pending one (failed).
 * LEGACY_SWEEP_INTERVAL_MS=0 leaves it out.
 */
@Injectable()
export class LegacySweepSchedule implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: Scheduler,
    private readonly processing: LegacyBatchProcessingService,
  ) {}

  onModuleInit(): void {
    this.scheduler.register({
      name: LEGACY_SWEEP_TASK,
      intervalMs: this.config.legacy.sweepIntervalMs,
      run: (signal) => this.processing.sweep(signal),
    });
  }
}
