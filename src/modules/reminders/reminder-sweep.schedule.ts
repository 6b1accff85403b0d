import { Injectable } from '@nestjs/common';
import { ScheduledTasks } from '../../platform/scheduling/scheduled-tasks';
import { PeriodicTask } from '../../platform/scheduling/scheduler';
import { ReminderFiringService } from './reminder-firing.service';

export const REMINDER_SWEEP_TASK = 'reminder-sweep';

/**
 * The reminders' sweep on the worker's in-process scheduler (once per interval across all workers,
 * nothing of it in Redis, so it runs whatever Redis lost). REMINDER_SWEEP_INTERVAL_MS=0 leaves it out.
 */
@Injectable()
export class ReminderSweepSchedule extends ScheduledTasks {
  constructor(private readonly firing: ReminderFiringService) {
    super();
  }

  protected tasks(): PeriodicTask[] {
    return [
      { name: REMINDER_SWEEP_TASK, intervalMs: this.config.reminders.sweepIntervalMs, run: (signal) => this.firing.sweep({ signal }) },
    ];
  }
}
