import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { DatabaseOutages } from '../database/database-outages';
import { PeriodicTaskLock } from './periodic-task-lock';
import { nextCheckDelayMs } from './scheduling.rules';
import { tracing } from '../tracing/tracing';

/** Work a worker process repeats every `intervalMs` (0 = never). `run` should stop early once `signal` aborts. */
export interface PeriodicTask {
  name: string;
  intervalMs: number;
  run(signal: AbortSignal): Promise<unknown>;
}

/** How long shutdown waits for runs under way before it lets the process go on closing. */
const STOP_WAIT_MS = 5_000;

interface Loop {
  task: PeriodicTask;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
}

/**
 * Runs periodic tasks from an in-process timer in every worker process; nothing about them lives in
 * Redis, so they carry on whatever Redis loses. Each run happens once across the workers sharing the
 * database (PeriodicTaskLock). A task never overlaps itself: the next wait starts when a run ends.
 * Waits are jittered; a failed run is one log line and the task carries on at its next interval (runs
 * that fail because the database is unreachable go to DatabaseOutages instead, which logs the outage once).
 * Tasks register during module init; timers start once the application has booted and stop on shutdown.
 */
@Injectable()
export class Scheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Scheduler.name);
  private readonly loops = new Map<string, Loop>();
  private readonly stopping = new AbortController();
  private started = false;

  constructor(
    private readonly lock: PeriodicTaskLock,
    private readonly random: () => number = Math.random,
    /** Told of failures the database being unreachable caused: one line per outage, not one per run. */
    private readonly outages?: Pick<DatabaseOutages, 'noted'>,
  ) {}

  register(task: PeriodicTask): void {
    if (this.loops.has(task.name)) throw new Error(`periodic task ${task.name} is registered twice`);
    if (task.intervalMs <= 0) return;
    const loop: Loop = { task };
    this.loops.set(task.name, loop);
    if (this.started) this.schedule(loop, 0);
  }

  /** Names of the tasks that run in this process. */
  taskNames(): string[] {
    return [...this.loops.keys()];
  }

  onApplicationBootstrap(): void {
    this.started = true;
    for (const loop of this.loops.values()) this.schedule(loop, 0);
  }

  /** First thing on shutdown, while the queues and the database are still open for the run under way. */
  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Stops every timer and waits (up to STOP_WAIT_MS) for runs under way, which are asked to stop early. */
  async stop(): Promise<void> {
    this.stopping.abort();
    const running: Array<Promise<void>> = [];
    for (const loop of this.loops.values()) {
      clearTimeout(loop.timer);
      if (loop.running) running.push(loop.running);
    }
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
    await Promise.race([Promise.all(running), timeout]);
    clearTimeout(timer);
  }

  private schedule(loop: Loop, dueInMs: number): void {
    if (this.stopping.signal.aborted) return;
    const delay = nextCheckDelayMs(dueInMs, loop.task.intervalMs, this.random());
    loop.timer = setTimeout(() => {
      loop.running = this.tick(loop).finally(() => (loop.running = undefined));
    }, delay);
  }

  private async tick(loop: Loop): Promise<void> {
    const { name, intervalMs } = loop.task;
    let dueInMs = intervalMs;
    try {
      const claim = await this.lock.claim(name, intervalMs);
      if (claim.kind === 'skip') {
        dueInMs = claim.dueInMs;
      } else {
        let failure: unknown;
        const started = Date.now();
        try {
          // Each run is a trace of its own (sweeps, retention, partition upkeep, reminders, calendar syncs).
          await tracing.inSpan(`periodic ${name}`, { attributes: { 'periodic.task': name } }, () => loop.task.run(this.stopping.signal));
        } catch (error) {
          failure = error;
          if (!this.outages?.noted(error))
            this.logger.error({ task: name, durationMs: Date.now() - started, error: messageOf(error) }, 'periodic task failed');
        }
        await claim.finish(failure);
      }
    } catch (error) {
      if (!this.outages?.noted(error)) this.logger.error({ task: name, error: messageOf(error) }, 'periodic task could not be claimed');
    }
    this.schedule(loop, dueInMs);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
