import { OnModuleInit } from '@nestjs/common';
import { PeriodicTask, Scheduler } from './scheduler';

/** A module's periodic tasks (worker only), registered with the process's scheduler at module init. */
export abstract class ScheduledTasks implements OnModuleInit {
  protected constructor(private readonly scheduler: Scheduler) {}

  /** Read at module init, so intervals may come from config (an interval of 0 leaves a task out). */
  protected abstract tasks(): PeriodicTask[];

  onModuleInit(): void {
    for (const task of this.tasks()) this.scheduler.register(task);
  }
}
