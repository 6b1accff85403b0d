import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { UnitOfWork } from '../../../../platform/database/unit-of-work';
import { newId } from '../../../../platform/ids/ids';
import { EventsService } from '../../../events/events.service';
import { Coalescer } from '../../../../platform/concurrency/coalescer';
import { WebhookDeliveriesRepository } from '../../webhook-deliveries.repository';
import { fanOut, inEventOrder, wakesOf } from './webhook-dispatch.rules';
import { WebhookBatches } from '../batches/webhook-batches.service';
import { dispatchSpans } from '../webhook-spans';
import { WEBHOOK_IDS } from '../../webhooks.ids';

/**
 * Events per dispatch transaction, and dispatch transactions running at once per process: one, so a
 * worker creates deliveries in event order (their ids, which a subscription's batches claim by, follow it).
 */
const MAX_BATCH = 200;
const MAX_PARALLEL_BATCHES = 1;
/** Dispatch's transactions span accounts and publish nothing: their context names the step alone. */
const DISPATCH_CONTEXT = { accountId: '', requestId: 'dispatch', clientRequestId: 'dispatch' };

/**
 * Fans events out to subscriptions (worker side): one pending delivery row per matching enabled
 * subscription that existed when the event was created, the event marked dispatched in the same
 * transaction, then one wake-up per subscription that got NEW rows (WebhookBatches). Running it twice for an event is harmless: the
 * event is skipped once dispatched (or while another dispatcher holds it), and (event, subscription)
 * is unique.
 */
@Injectable()
export class WebhookDispatchService {
  private readonly logger = new Logger(WebhookDispatchService.name);
  private readonly transactions = new Coalescer<string, void>(
    async (eventIds) => {
      await this.dispatch(eventIds).catch((error: Error) => {
        this.logger.warn(`dispatch of ${eventIds.length} event(s) failed: ${error.message}`);
        throw error;
      });
      return eventIds.map(() => undefined);
    },
    MAX_BATCH,
    MAX_PARALLEL_BATCHES,
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
    private readonly repository: WebhookDeliveriesRepository,
    private readonly batches: WebhookBatches,
  ) {}

  /**
   * Dispatch of one event from its queue job. Calls arriving while MAX_PARALLEL_BATCHES transactions run
   * are coalesced into the next batch: no added latency when idle, few queries per event under load.
   */
  dispatchOne(eventId: string): Promise<void> {
    return this.transactions.call(eventId);
  }

  /** Dispatches these events in one transaction; returns the number of deliveries created. */
  async dispatch(eventIds: string[]): Promise<number> {
    const ids = [...new Set(eventIds)];
    if (ids.length === 0) return 0;
    const began = performance.now();
    let events: Awaited<ReturnType<EventsService['lockUndispatched']>> = [];
    let fanned: Array<{ id: string; eventId: string | null }> = [];
    const created = await this.uow.run(DISPATCH_CONTEXT, async (tx) => {
      const { manager } = tx;
      events = await this.events.lockUndispatched(tx, ids);
      if (events.length === 0) return [];
      const candidates = await this.repository.candidateSubscriptions(manager, events, this.config.legacy.sunsetAt);
      const rows = inEventOrder(fanOut(events, candidates)).map((delivery) => ({ id: newId(WEBHOOK_IDS.delivery), ...delivery }));
      fanned = rows;
      const inserted = await this.repository.insertEventDeliveries(manager, rows);
      await this.events.markDispatched(
        tx,
        events.map((event) => event.id),
      );
      return inserted;
    });
    dispatchSpans(events, fanned, created, began);
    // One wake-up per subscription, from its first new delivery on (not one job per delivery).
    await this.batches.wake(wakesOf(created));
    return created.length;
  }
}
