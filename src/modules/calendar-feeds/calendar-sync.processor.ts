import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { QueueProcessor } from '../../platform/queue/queue-processor';
import { CALENDAR_SYNC_QUEUE, CalendarSyncJobData } from './calendar-sync-queue.service';
import { CalendarSyncService } from './calendar-sync.service';

/** Syncs one worker process runs at once (each mostly waits on a download). */
const CONCURRENCY = 4;
/**
 * A stopping worker does not wait for its syncs: one still running is abandoned (each change it made is
 * committed on its own, the next sync finishes the job, and its claim runs out with its lease). The
 * bound only covers closing the connections.
 */
const CLOSE_WITHIN_MS = 500;

/** Runs the calendar-sync jobs (worker only): one sync per job; a feed another worker holds is skipped. */
@Injectable()
export class CalendarSyncProcessor extends QueueProcessor<CalendarSyncJobData> {
  constructor(private readonly sync: CalendarSyncService) {
    // A sync may take the whole download time-out and then its writes.
    super(CALENDAR_SYNC_QUEUE, (config) => ({
      concurrency: CONCURRENCY,
      lockDuration: config.calendar.timeoutMs + 30_000,
      closeWithinMs: CLOSE_WITHIN_MS,
    }));
  }

  async process(job: Job<CalendarSyncJobData>): Promise<void> {
    const result = await this.sync.sync(job.data.feedId);
    // One line per sync that changed or skipped something, or failed (never the url: it carries the listing's token).
    if (result.kind === 'failed') this.logger.warn({ feedId: job.data.feedId, error: result.error }, 'calendar sync failed');
    if (result.kind === 'synced' && (Object.values(result.counts).some((n) => n > 0) || result.skipped.length > 0)) {
      this.logger.log({ feedId: job.data.feedId, ...result.counts, skipped: result.skipped.length }, 'calendar synced');
    }
  }
}
