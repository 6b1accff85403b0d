import { Injectable } from '@nestjs/common';
import { ScheduledTasks } from '../../platform/scheduling/scheduled-tasks';
import { PeriodicTask } from '../../platform/scheduling/scheduler';
import { CalendarSyncQueue } from './calendar-sync-queue.service';
import { CalendarSyncService } from './calendar-sync.service';

export const CALENDAR_SCAN_TASK = 'calendar-feeds-due';

/** Feeds queued per scan: a backlog (after an outage) drains over a few scans instead of all at once. */
const SCAN_BATCH = 200;

/**
 * The scan for feeds due a sync (next_sync_at passed, no claim) on the worker's scheduler, once per
 * CALENDAR_SCAN_INTERVAL_MS across workers; each due feed gets a sync job. 0 leaves it out.
 */
@Injectable()
export class CalendarSyncSchedule extends ScheduledTasks {
  constructor(
    private readonly sync: CalendarSyncService,
    private readonly queue: CalendarSyncQueue,
  ) {
    super();
  }

  protected tasks(): PeriodicTask[] {
    const scan = async () => this.queue.enqueue(await this.sync.dueFeedIds(SCAN_BATCH));
    return [{ name: CALENDAR_SCAN_TASK, intervalMs: this.config.calendar.scanIntervalMs, run: scan }];
  }
}
