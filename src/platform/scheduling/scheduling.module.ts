import { Module } from '@nestjs/common';
import { DatabaseOutages } from '../database/database-outages';
import { PeriodicTaskLock } from './periodic-task-lock';
import { Scheduler } from './scheduler';

/** Periodic work of the worker process (see Scheduler). Imported by the modules that register tasks. */
@Module({
  providers: [
    PeriodicTaskLock,
    {
      provide: Scheduler,
      inject: [PeriodicTaskLock, DatabaseOutages],
      useFactory: (lock: PeriodicTaskLock, outages: DatabaseOutages) => new Scheduler(lock, Math.random, outages),
    },
  ],
  exports: [Scheduler],
})
export class SchedulingModule {}
