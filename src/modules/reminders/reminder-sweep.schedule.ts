import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Scheduler } from '../../platform/scheduling/scheduler';
import { ReminderFiringService } from './reminder-firing.service';

export const REMINDER_SWEEP_TASK = 'reminder-sweep';

/**
 * The reminders' sweep on the worker's in-process scheduler (once per interval across all workers,
 * nothing of it in Redis, so it runs whatever Redis lost). REMINDER_SWEEP_INTERVAL_MS=0 leaves it out.
 */
@Injectable()
export class ReminderSweepSchedule implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: Scheduler,
    private readonly firing: ReminderFiringService,
  ) {}

  onModuleInit(): void {
    this.scheduler.register({
      name: REMINDER_SWEEP_TASK,
      intervalMs: this.config.reminders.sweepIntervalMs,
      run: (signal) => this.firing.sweep({ signal }),
    });
  }
}
