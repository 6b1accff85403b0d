import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { QueueProcessor } from '../../platform/queue/queue-processor';
import { ReminderFiringService } from './reminder-firing.service';
import { REMINDER_DUE_QUEUE, ReminderDueJobData } from './reminder-queue.service';

/** Reminder jobs one worker process runs at once: each is one short transaction. */
const CONCURRENCY = 20;
/** A job this much (or less) ahead of its reminder's date ran early by the clocks, not for a moved reminder. */
const CLOCK_SKEW_MAX_MS = 60_000;

/**
 * Runs the delayed reminder jobs (worker only). A job that runs before its reminder is due by the
 * database's clock (clocks differ by a few milliseconds) goes back to waiting for the rest; a job
 * whose reminder was moved, deleted or already fired does nothing.
 */
@Injectable()
export class ReminderDueProcessor extends QueueProcessor<ReminderDueJobData> {
  constructor(private readonly firing: ReminderFiringService) {
    super(REMINDER_DUE_QUEUE, { concurrency: CONCURRENCY });
  }

  async process(job: Job<ReminderDueJobData>, token?: string): Promise<void> {
    const outcome = await this.firing.fire(job.data.accountId, job.data.reminderId);
    if (outcome.kind !== 'notDue') return;
    // A reminder moved to a later date has that date's own job: this one is done.
    if (outcome.dueInMs > CLOCK_SKEW_MAX_MS) return;
    // Early by the database's clock: wait the difference.
    await job.moveToDelayed(Date.now() + outcome.dueInMs, token);
    throw new DelayedError();
  }
}
