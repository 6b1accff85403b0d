import { Injectable } from '@nestjs/common';
import { ScheduledTasks } from '../../platform/scheduling/scheduled-tasks';
import { PeriodicTask } from '../../platform/scheduling/scheduler';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LegacyRetentionService } from './legacy-retention.service';

export const LEGACY_SWEEP_TASK = 'legacy-batch-sweep';
export const LEGACY_RETENTION_TASK = 'legacy-batch-retention';

/**
 * The legacy batches' periodic work on the worker's in-process scheduler (once per interval across
 * workers): the sweep (batches whose job was lost or whose worker died, and past the sunset every
 * pending one, failed; LEGACY_SWEEP_INTERVAL_MS=0 leaves it out) and the 90-day retention of completed
 * batches, on the period of the other retention jobs (WEBHOOK_RETENTION_INTERVAL_MS).
 */
@Injectable()
export class LegacySweepSchedule extends ScheduledTasks {
  constructor(
    private readonly processing: LegacyBatchProcessingService,
    private readonly retention: LegacyRetentionService,
  ) {
    super();
  }

  protected tasks(): PeriodicTask[] {
    return [
      { name: LEGACY_SWEEP_TASK, intervalMs: this.config.legacy.sweepIntervalMs, run: (signal) => this.processing.sweep(signal) },
      { name: LEGACY_RETENTION_TASK, intervalMs: this.config.webhook.retentionIntervalMs, run: (signal) => this.retention.run({ signal }) },
    ];
  }
}
