import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { redisConnectionOptions } from '../../platform/platform.module';
import { WebhookDispatchService } from './webhook-dispatch.service';
import { DispatchJobData, WEBHOOK_DISPATCH_QUEUE } from './webhook-queue.service';

/** Dispatch jobs taken at once; the service coalesces them into a few transactions. */
const DISPATCH_CONCURRENCY = 50;

/** Fans committed events out to delivery rows (worker only). */
@Injectable()
export class WebhookDispatchProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatchProcessor.name);
  private worker?: Worker<DispatchJobData>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dispatcher: WebhookDispatchService,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<DispatchJobData>(WEBHOOK_DISPATCH_QUEUE, (job: Job<DispatchJobData>) => this.dispatcher.dispatchOne(job.data.eventId), {
      connection: redisConnectionOptions(this.config.redisUrl),
      prefix: this.config.redisPrefix,
      concurrency: DISPATCH_CONCURRENCY,
    });
    this.worker.on('failed', (job, error) => this.logger.warn(`dispatch job ${job?.id} failed: ${error.message}`));
    this.worker.on('error', (error) => this.logger.error(`dispatch worker: ${error.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
