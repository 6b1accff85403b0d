import { Injectable, Logger } from '@nestjs/common';
import { IdempotencyStore } from '../../../../platform/idempotency/idempotency.store';
import { EventsService } from '../../../events/events.service';
import { WebhookDeliveriesRepository } from '../../webhook-deliveries.repository';
import { RETENTION_DAYS, SNIPPET_RETENTION_MS } from '../../webhook-retention.rules';

const BATCH = 1_000;
/** One run stops after this long; the next run carries on (keeps a backlog from holding the job forever). */
const RUN_BUDGET_MS = 5 * 60_000;

/**
 * What is past retention goes by whole partitions (the event log and the deliveries are partitioned by
 * week on their time-ordered ids: docs/webhooks.md), each dropped in its own short transaction, so no
 * row is deleted one by one and concurrent writes carry on. A partition goes once its whole week is past
 * the 90 days: rows are kept 90 to 97 days. The default partitions (empty unless an id fell outside every
 * partition) and the expired idempotency keys are deleted in small batches; response snippets are
 * trimmed after 7 days.
 */
@Injectable()
export class WebhookRetentionService {
  private readonly logger = new Logger(WebhookRetentionService.name);

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly events: EventsService,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** `signal` ends the run early, between batches (the worker is shutting down). */
  async run({ now = new Date(), signal }: { now?: Date; signal?: AbortSignal } = {}): Promise<RetentionResult> {
    const cutoff = new Date(now.getTime() - RETENTION_DAYS * 24 * 3600 * 1000);
    const budget = AbortSignal.timeout(RUN_BUDGET_MS);
    const stop = signal ? AbortSignal.any([signal, budget]) : budget;
    // Deliveries before events: a delivery never outlives the retention of the event it was made for.
    const partitions = [...(await this.repository.dropPartitionsBefore(cutoff)), ...(await this.events.dropPartitionsBefore(cutoff))];
    const deliveries = await drain(() => this.repository.deleteDefaultBatchBefore(cutoff, BATCH), stop);
    // Response snippets go after 7 days (an extension of the spec: docs/webhooks.md); the attempts stay.
    const snippets = await drain(() => this.repository.dropExpiredSnippets(now, SNIPPET_RETENTION_MS, BATCH), stop);
    const events = await drain(() => this.events.deleteDefaultBatchBefore(cutoff, BATCH), stop);
    const idempotencyKeys = await drain(() => this.idempotency.deleteExpired(BATCH), stop);
    if (partitions.length + deliveries + snippets + events + idempotencyKeys > 0) {
      this.logger.log(
        `retention: dropped partitions [${partitions.join(', ')}]; deleted ${deliveries} deliveries and ${events} events ` +
          `of the default partitions, ${idempotencyKeys} expired idempotency keys; ` +
          `dropped the old response snippets of ${snippets} deliveries`,
      );
    }
    return { partitions, deliveries, snippets, events, idempotencyKeys };
  }
}

export interface RetentionResult {
  /** The partitions dropped (deliveries, their keys, events), by name. */
  partitions: string[];
  /** Deliveries deleted one by one from the default partition. */
  deliveries: number;
  /** Deliveries whose response snippets older than 7 days were dropped. */
  snippets: number;
  /** Events deleted one by one from the default partition. */
  events: number;
  idempotencyKeys: number;
}

async function drain(deleteBatch: () => Promise<number>, stop: AbortSignal): Promise<number> {
  let total = 0;
  while (!stop.aborted) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < BATCH) break;
  }
  return total;
}
