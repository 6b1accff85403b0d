import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { startQueueWorker } from '../../../platform/queue/queue-worker';
import { WebhookRetentionService } from './webhook-retention.service';
import { WebhookSweepService } from './webhook-sweep.service';

/** The worker's own queue (registered by WebhooksWorkerModule; the API never adds to it). */
export const WEBHOOK_MAINTENANCE_QUEUE = 'webhook-maintenance';
export const SWEEP_SCHEDULER_ID = 'webhook-sweep';
export const RETENTION_SCHEDULER_ID = 'webhook-retention';

/**
 * The periodic jobs (worker only): the dispatch/retry sweep and retention. BullMQ job schedulers live
 * in Redis, so with several worker processes each run happens once. Schedulers are shared by every
 * worker on the prefix: upserting at each start is idempotent and the last worker started sets the
 * interval; an interval of 0 removes the scheduler (tests that share one database with other files
 * turn both off and call the services directly).
 */
@Injectable()
export class WebhookMaintenanceProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookMaintenanceProcessor.name);
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(WEBHOOK_MAINTENANCE_QUEUE) private readonly queue: Queue,
    private readonly sweeper: WebhookSweepService,
    private readonly retention: WebhookRetentionService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const scheduled = await this.registerSchedulers();
    if (!scheduled) return;
    // Concurrency 2: a long retention run must not hold up the sweep.
    this.worker = startQueueWorker(
      this.config,
      WEBHOOK_MAINTENANCE_QUEUE,
      (job) => this.run(job),
      { concurrency: 2, lockDuration: 60_000 },
      this.logger,
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /** Upserts (or removes, for 0) both schedulers; true when at least one is on. */
  async registerSchedulers(): Promise<boolean> {
    const { sweepIntervalMs, retentionIntervalMs } = this.config.webhook;
    await this.schedule(SWEEP_SCHEDULER_ID, 'sweep', sweepIntervalMs);
    await this.schedule(RETENTION_SCHEDULER_ID, 'retention', retentionIntervalMs);
    return sweepIntervalMs > 0 || retentionIntervalMs > 0;
  }

  async run(job: Pick<Job, 'name'>): Promise<unknown> {
    if (job.name === 'sweep') return this.sweeper.sweep();
    if (job.name === 'retention') return this.retention.run();
    this.logger.warn(`unknown maintenance job ${job.name}`);
    return undefined;
  }

  private async schedule(id: string, name: string, everyMs: number): Promise<void> {
    if (everyMs === 0) {
      await this.queue.removeJobScheduler(id);
      return;
    }
    await this.queue.upsertJobScheduler(id, { every: everyMs }, { name, opts: { removeOnComplete: true, removeOnFail: true } });
  }
}
