import { Injectable, Logger } from '@nestjs/common';
import { IdempotencyStore } from '../../../platform/idempotency/idempotency.store';
import { EventsService } from '../../events/events.service';
import { WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { SNIPPET_RETENTION_MS } from '../delivery/webhook-delivery.rules';

/** Spec 6.1 rule 6 / 8: the event log and delivery history are kept for 90 days. */
export const RETENTION_DAYS = 90;
const BATCH = 1_000;
/** One run stops after this long; the next run carries on (keeps a backlog from holding the job forever). */
const RUN_BUDGET_MS = 5 * 60_000;

/**
 * Deletes what is past retention in small batches, each its own short statement, so the tables are
 * never locked for long and concurrent writes carry on. Deliveries first (their own created_at), then
 * events (the FK cascade takes any younger delivery of an expired event), then expired idempotency keys.
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
    const deliveries = await drain(() => this.repository.deleteBatchCreatedBefore(cutoff, BATCH), stop);
    // Response snippets go after 7 days (an extension of the spec: docs/webhooks.md); the attempts stay.
    const snippets = await drain(() => this.repository.dropExpiredSnippets(now, SNIPPET_RETENTION_MS, BATCH), stop);
    const events = await drain(() => this.events.deleteBatchCreatedBefore(cutoff, BATCH), stop);
    const idempotencyKeys = await drain(() => this.idempotency.deleteExpired(BATCH), stop);
    if (deliveries + snippets + events + idempotencyKeys > 0) {
      this.logger.log(
        `retention: deleted ${deliveries} deliveries, ${events} events, ${idempotencyKeys} expired idempotency keys; ` +
          `dropped the old response snippets of ${snippets} deliveries`,
      );
    }
    return { deliveries, snippets, events, idempotencyKeys };
  }
}

export interface RetentionResult {
  deliveries: number;
  /** Deliveries whose response snippets older than 7 days were dropped. */
  snippets: number;
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
