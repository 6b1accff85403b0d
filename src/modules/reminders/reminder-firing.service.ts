import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RequestContext } from '../../platform/context/request-context';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { Metrics } from '../../platform/metrics/metrics';
import { EventsService } from '../events/events.service';
import { toReminderResponse } from './reminder.response';
import { armHorizonMs, DUE_GRACE_MS } from './reminder-due.rules';
import { ReminderQueue } from './reminder-queue.service';
import { RemindersRepository } from './reminders.repository';

/** What one attempt to fire a reminder found. */
export type FireOutcome =
  | { kind: 'fired' }
  | { kind: 'notDue'; dueInMs: number }
  /** Fired before (by another path) or deleted: nothing to do, ever. */
  | { kind: 'done' };

const SWEEP_BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;

/**
 * Fires reminders (worker only): `reminder.due` exactly once per reminder (and date). The fired_at flag
 * is claimed and the event written in one transaction, so whichever path claims first (the delayed
 * job, its retry, the sweep of any worker) emits it, and every other path finds it done.
 */
@Injectable()
export class ReminderFiringService {
  private readonly logger = new Logger(ReminderFiringService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly repository: RemindersRepository,
    private readonly events: EventsService,
    private readonly queue: ReminderQueue,
    private readonly metrics: Metrics,
  ) {}

  async fire(accountId: string, reminderId: string): Promise<FireOutcome> {
    const outcome = await this.firing(accountId, reminderId);
    if (outcome.kind === 'fired') this.metrics.remindersFired.inc();
    return outcome;
  }

  private firing(accountId: string, reminderId: string): Promise<FireOutcome> {
    return this.uow.run(dueContext(accountId, reminderId), async (tx) => {
      const reminder = await this.repository.claimDue(tx.manager, accountId, reminderId);
      if (reminder) {
        await this.events.publish(tx, 'reminder.due', [toReminderResponse(reminder)]);
        return { kind: 'fired' };
      }
      const state = await this.repository.dueState(tx.manager, accountId, reminderId);
      return state && !state.fired ? { kind: 'notDue', dueInMs: Math.max(1, state.dueInMs) } : { kind: 'done' };
    });
  }

  /**
   * Periodic (and callable with a scope of accounts). Fires the reminders overdue by more than
   * DUE_GRACE_MS (their job was lost: Redis lost its data, the worker was down past the job's
   * attempts, arming failed), then arms the jobs of those due within the arm horizon: the ones coming
   * close (written earlier, too far ahead to be armed then) and any whose job was lost (a job still
   * there makes that a no-op), so they fire on time even after Redis lost its data.
   */
  async sweep(scope: { accountIds?: string[]; signal?: AbortSignal } = {}): Promise<{ fired: number; armed: number }> {
    let fired = 0;
    let armed = 0;
    let after: { date: Date; id: string } | undefined;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !scope.signal?.aborted; batch++) {
      const horizonMs = armHorizonMs(this.config.reminders.sweepIntervalMs);
      const rows = await this.repository.unfiredUntil(horizonMs, SWEEP_BATCH, scope.accountIds, after);
      const overdue = rows.filter((row) => row.overdueMs > DUE_GRACE_MS);
      const upcoming = rows.filter((row) => row.overdueMs <= DUE_GRACE_MS);
      // Overdue ones first: firing needs only the database, whatever state Redis is in.
      for (const row of overdue) {
        if ((await this.fire(row.accountId, row.id)).kind === 'fired') fired++;
      }
      await this.queue.arm(upcoming);
      armed += upcoming.length;
      // The next batch starts after this one: the upcoming rows stay unfired, and a batch full of them
      // must not hide the reminders due at the same time beyond it (500 check-outs at 10:00).
      if (rows.length < SWEEP_BATCH) break;
      after = rows[rows.length - 1];
    }
    if (fired > 0) this.logger.log(`reminder sweep: fired ${fired} overdue reminder(s) whose job was lost`);
    return { fired, armed };
  }
}

/**
 * A time-triggered event has no request: its envelope's apiRequestId and clientRequestId are
 * `due_<reminderId>` (docs/events.md).
 */
function dueContext(accountId: string, reminderId: string): RequestContext {
  return { accountId, requestId: `due_${reminderId}`, clientRequestId: `due_${reminderId}` };
}
