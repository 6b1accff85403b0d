import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { enqueueBestEffort } from '../../platform/queue/enqueue-best-effort';

export const CALENDAR_SYNC_QUEUE = 'calendar-sync';

export interface CalendarSyncJobData {
  feedId: string;
}

/** A failed job is not retried by BullMQ: the feed records the failure and its next sync comes at its interval. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 1 } as const;

/**
 * Producer of sync jobs (API: a created feed and POST …/sync; worker: the scan for due feeds). One job id
 * per feed, so a feed waiting for a worker is queued once however often it is asked for. The database
 * decides what is due (next_sync_at): a job that could not be added is found again by the scan.
 */
@Injectable()
export class CalendarSyncQueue {
  private readonly logger = new Logger(CalendarSyncQueue.name);

  constructor(@InjectQueue(CALENDAR_SYNC_QUEUE) private readonly queue: Queue<CalendarSyncJobData>) {}

  /** Best effort (enqueueBestEffort: never throws, bounded wait): the scan for due feeds is the fallback. */
  async enqueue(feedIds: string[]): Promise<void> {
    if (feedIds.length === 0) return;
    const jobs = feedIds.map((feedId) => ({ name: 'sync', data: { feedId }, opts: { jobId: `sync.${feedId}`, ...JOB_OPTIONS } }));
    await enqueueBestEffort(
      () => this.queue.addBulk(jobs),
      this.logger,
      `queueing ${feedIds.length} calendar sync(s) failed (the scan will find them)`,
    );
  }
}
