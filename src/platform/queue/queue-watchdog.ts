import { Logger } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { untilAborted } from '../async/until-aborted';
import { Metrics } from '../metrics/metrics';

/** How often a worker's watchdog looks. */
export const WATCHDOG_INTERVAL_MS = 5_000;
/** A check's Redis command that has not answered by then counts as a connection that stopped answering. */
const CHECK_TIMEOUT_MS = 2_000;

/** What the watchdog needs of a BullMQ worker (its fields that BullMQ keeps private are read by name). */
type WatchedWorker = Pick<Worker, 'on' | 'isRunning' | 'run' | 'client' | 'closing' | 'keys'>;

/** The state a watchdog reports (worker metrics, logs): when its worker last moved a job and how often it recovered. */
export interface WatchdogState {
  queue: string;
  lastMovedAt: number;
  recoveries: number;
}

/**
 * A queue worker that has not moved a job for longer than its longest job may take, while jobs wait,
 * is stuck (BullMQ's tracker has several "worker alive but never processes again after a Redis outage"
 * reports): the watchdog logs it, counts it (`pop_queue_watchdog_recoveries_total`) and recovers by
 * itself: a fetch loop that ended is run again, and a blocking connection that stopped answering is
 * dropped, so ioredis reconnects it and the loop fetches again on a fresh socket. A command connection
 * that does not answer a check is reconnected the same way. Nothing here runs a job: it only makes the
 * worker fetch again, so a false alarm costs one reconnect.
 */
export class QueueWatchdog {
  private lastMovedAt = Date.now();
  private recoveries = 0;
  private readonly timer: NodeJS.Timeout;
  private checking = false;

  constructor(
    private readonly worker: WatchedWorker,
    private readonly queue: string,
    private readonly longestJobMs: number,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    intervalMs = WATCHDOG_INTERVAL_MS,
  ) {
    const moved = () => (this.lastMovedAt = Date.now());
    worker.on('active', moved);
    worker.on('completed', moved);
    worker.on('failed', moved);
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
    worker.on('closing', () => clearInterval(this.timer));
  }

  get state(): WatchdogState {
    return { queue: this.queue, lastMovedAt: this.lastMovedAt, recoveries: this.recoveries };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One look: idle past the bound with jobs waiting means stuck. */
  async check(now = Date.now()): Promise<void> {
    if (this.checking || this.worker.closing) return;
    if (now - this.lastMovedAt < this.longestJobMs) return;
    this.checking = true;
    try {
      const waiting = await this.waitingJobs();
      if (waiting === undefined) return this.recover('its Redis connection stopped answering', 'client');
      if (waiting === 0) {
        this.lastMovedAt = now; // idle with nothing to do: look again a full bound later
        return;
      }
      await this.recover(`${waiting} job(s) waiting and none moved for ${Math.round((now - this.lastMovedAt) / 1000)} s`, 'blocking');
    } finally {
      this.checking = false;
    }
  }

  /** Jobs ready to run (waiting and prioritized); undefined when Redis did not answer in time. */
  private async waitingJobs(): Promise<number | undefined> {
    try {
      const client = await untilAborted(this.worker.client, AbortSignal.timeout(CHECK_TIMEOUT_MS));
      const commands = client as unknown as { llen(key: string): Promise<number>; zcard(key: string): Promise<number> };
      const [wait, prioritized] = await untilAborted(
        Promise.all([commands.llen(this.worker.keys.wait), commands.zcard(this.worker.keys.prioritized)]),
        AbortSignal.timeout(CHECK_TIMEOUT_MS),
      );
      return Number(wait) + Number(prioritized);
    } catch {
      return undefined;
    }
  }

  private async recover(why: string, connection: 'client' | 'blocking'): Promise<void> {
    this.recoveries++;
    this.lastMovedAt = Date.now(); // one recovery per bound, not one per look
    this.metrics.queueWatchdogRecoveries.inc({ queue: this.queue });
    const running = this.worker.isRunning();
    this.logger.warn({ queue: this.queue, why, running }, 'queue worker stuck: recovering (reconnecting, fetching again)');
    if (!running) {
      this.worker
        .run()
        .catch((error: Error) => this.logger.warn({ queue: this.queue, error: error.message }, 'queue worker did not restart'));
      return;
    }
    const dropped = connection === 'client' ? await this.commandClient() : this.blockingClient();
    // ioredis reconnects a client dropped with reconnect=true; BullMQ's commands on it fail and are retried.
    dropped?.disconnect(true);
  }

  private async commandClient(): Promise<{ disconnect(reconnect?: boolean): void } | undefined> {
    return untilAborted(this.worker.client, AbortSignal.timeout(CHECK_TIMEOUT_MS)).catch(() => undefined);
  }

  /** BullMQ keeps the worker's blocking connection private; its client is what must reconnect. */
  private blockingClient(): { disconnect(reconnect?: boolean): void } | undefined {
    const blocking = (this.worker as unknown as { blockingConnection?: { _client?: { disconnect(reconnect?: boolean): void } } })
      .blockingConnection;
    return blocking?._client;
  }
}
