import { Inject, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { PeriodicTask, Scheduler } from './scheduler';

/**
 * A module's periodic tasks (worker only), registered with the process's scheduler at module init. Every
 * schedule needs the scheduler and its intervals from config: both are injected here (as properties), so a
 * subclass's constructor names only the services its tasks run.
 */
export abstract class ScheduledTasks implements OnModuleInit {
  @Inject(Scheduler) private readonly scheduler!: Scheduler;
  @Inject(APP_CONFIG) protected readonly config!: AppConfig;

  /** Read at module init, so intervals may come from config (an interval of 0 leaves a task out). */
  protected abstract tasks(): PeriodicTask[];

  onModuleInit(): void {
    for (const task of this.tasks()) this.scheduler.register(task);
  }
}
