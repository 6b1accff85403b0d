import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { QueueProcessor } from '../../../../platform/queue/queue-processor';
import { ReplayJobData, WEBHOOK_REPLAY_QUEUE } from '../../webhook-queue.service';
import { WebhookReplayRunner } from './webhook-replay-runner.service';

/** Replays run at once per worker process (each sends one delivery at a time, at the replay rate). */
const REPLAY_CONCURRENCY = 10;
/**
 * A short job lock (renewed while the job runs): a killed worker's replay is taken for stalled and
 * resumed by another worker within about LOCK + STALLED_INTERVAL.
 */
const LOCK_MS = 10_000;
const STALLED_INTERVAL_MS = 5_000;
/** A replay interrupted by shutdown is picked up again after this long (by any worker). */
const RESUME_AFTER_MS = 500;

/** Runs webhook replays (worker only, issue 13). */
@Injectable()
export class WebhookReplayProcessor extends QueueProcessor<ReplayJobData> implements OnModuleDestroy {
  private readonly stopping = new AbortController();

  constructor(private readonly runner: WebhookReplayRunner) {
    super(WEBHOOK_REPLAY_QUEUE, (config) => ({
      concurrency: REPLAY_CONCURRENCY,
      lockDuration: LOCK_MS,
      stalledInterval: STALLED_INTERVAL_MS,
      closeWithinMs: config.webhook.timeoutMs + 2_000,
    }));
  }

  onModuleDestroy(): void {
    // Running replays stop between two sends; their jobs go back to the queue for any worker to resume.
    this.stopping.abort();
  }

  protected async process(job: Job<ReplayJobData>, token?: string): Promise<void> {
    const end = await this.runner.run(job.data.replayId, this.stopping.signal);
    this.logger.log({ replayId: job.data.replayId, end }, 'webhook replay run ended');
    if (end === 'interrupted') {
      await job.moveToDelayed(Date.now() + RESUME_AFTER_MS, token);
      throw new DelayedError();
    }
  }
}
