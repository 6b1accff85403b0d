import { Module } from '@nestjs/common';
import { PeriodicTaskLock } from './periodic-task-lock';
import { Scheduler } from './scheduler';

/** Periodic work of the worker process (see Scheduler). Imported by the modules that register tasks. */
@Module({
  providers: [
    PeriodicTaskLock,
    { provide: Scheduler, inject: [PeriodicTaskLock], useFactory: (lock: PeriodicTaskLock) => new Scheduler(lock) },
  ],
  exports: [Scheduler],
})
export class SchedulingModule {}
