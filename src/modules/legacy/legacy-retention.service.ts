import { Injectable, Logger } from '@nestjs/common';
import { LegacyBatchesRepository } from './legacy-batches.repository';

/** Completed legacy batches (with their records' bodies) are kept as long as the event log: 90 days. */
export const LEGACY_RETENTION_DAYS = 90;
const BATCH = 1_000;

/** Deletes completed legacy batches past retention, in small statements, stopping when `signal` aborts. */
@Injectable()
export class LegacyRetentionService {
  private readonly logger = new Logger(LegacyRetentionService.name);

  constructor(private readonly repository: LegacyBatchesRepository) {}

  async run({ now = new Date(), signal }: { now?: Date; signal?: AbortSignal } = {}): Promise<number> {
    const cutoff = new Date(now.getTime() - LEGACY_RETENTION_DAYS * 24 * 3600 * 1000);
    let total = 0;
    while (!signal?.aborted) {
      const deleted = await this.repository.deleteCompletedBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) this.logger.log(`retention: deleted ${total} completed legacy batches`);
    return total;
  }
}
