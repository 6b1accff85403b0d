import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Tx } from '../../platform/database/unit-of-work';
import { enqueueBestEffort } from '../../platform/queue/enqueue-best-effort';
import { armHorizonMs, dueDelayMs, dueJobId, isWithinArmHorizon } from './reminder-due.rules';

export const REMINDER_DUE_QUEUE = 'reminder-due';

/** Job data: the reminder to fire and the date the job was armed for. */
export interface ReminderDueJobData {
  accountId: string;
  reminderId: string;
  date: string;
}

export interface ArmedReminder {
  accountId: string;
  id: string;
  date: Date;
}

/**
 * A failing job (database briefly down) is tried again a few times; finished jobs are removed. The
 * job is only the fast path: the database's fired_at flag decides, and the sweep fires what a lost or
 * failed job left behind.
 */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;

/**
 * Producer side of the reminders' firing (API and worker): one delayed job per reminder and date,
 * armed only within the arm horizon (reminder-due.rules). Adding a job whose id exists is a no-op, so
 * arming again is idempotent.
 */
@Injectable()
export class ReminderQueue {
  private readonly logger = new Logger(ReminderQueue.name);
  private readonly horizonMs: number;

  constructor(
    @InjectQueue(REMINDER_DUE_QUEUE) private readonly queue: Queue<ReminderDueJobData>,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.horizonMs = armHorizonMs(config.reminders.sweepIntervalMs);
  }

  /**
   * A reminder just written (created or moved): its job is armed once the transaction has committed
   * (never before) when it is due within the horizon; a later one is armed by the sweep as it comes close.
   */
  armAfterCommit(tx: Tx, reminder: ArmedReminder): void {
    if (isWithinArmHorizon(reminder.date, Date.now(), this.horizonMs)) tx.afterCommit(() => this.arm([reminder]));
  }

  /**
   * Best effort (enqueueBestEffort: never throws, bounded wait): a job that could not be added is the
   * sweep's, which fires the reminder late rather than never.
   */
  async arm(reminders: ArmedReminder[]): Promise<void> {
    if (reminders.length === 0) return;
    const now = Date.now();
    const jobs = reminders.map((reminder) => ({
      name: 'due',
      data: { accountId: reminder.accountId, reminderId: reminder.id, date: reminder.date.toISOString() },
      opts: { jobId: dueJobId(reminder.id, reminder.date), delay: dueDelayMs(reminder.date, now) || undefined, ...JOB_OPTIONS },
    }));
    await enqueueBestEffort(
      () => this.queue.addBulk(jobs),
      this.logger,
      `arming ${reminders.length} reminder job(s) failed (the sweep will fire them)`,
    );
  }
}
