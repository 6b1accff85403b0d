import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { untilAborted } from '../../platform/async/until-aborted';

export const CALENDAR_SYNC_QUEUE = 'calendar-sync';

export interface CalendarSyncJobData {
  feedId: string;
}

const ADD_TIMEOUT_MS = 2_000;

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

  /** Never throws, and stops waiting on a Redis that does not answer (the scan is the fallback). */
  async enqueue(feedIds: string[]): Promise<void> {
    if (feedIds.length === 0) return;
    const adding = this.queue.addBulk(
      feedIds.map((feedId) => ({ name: 'sync', data: { feedId }, opts: { jobId: `sync.${feedId}`, ...JOB_OPTIONS } })),
    );
    try {
      await untilAborted(adding, AbortSignal.timeout(ADD_TIMEOUT_MS));
    } catch (error) {
      adding.catch(() => undefined);
      this.logger.warn(`queueing ${feedIds.length} calendar sync(s) failed (the scan will find them): ${(error as Error).message}`);
    }
  }
}
