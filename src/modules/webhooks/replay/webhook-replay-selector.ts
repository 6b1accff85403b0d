import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventsService } from '../../events/events.service';
import { ReplayCursor, WebhookReplaysRepository } from '../webhook-replays.repository';
import { selectForReplay } from './webhook-replay.rules';

/** What a replay is over: its subscription, window, filters and onlyFailed. */
export interface ReplayScope {
  accountId: string;
  subscriptionId: string;
  since: Date;
  until: Date;
  eventFilters: string[];
  onlyFailed: boolean;
}

export interface ReplayBatch {
  emit: Array<{ id: string; eventName: string }>;
  skipped: number;
  /** The last event read (the cursor moves there); undefined when the window had nothing after `after`. */
  last?: ReplayCursor;
  /** No event of the window after this batch. */
  exhausted: boolean;
}

/** Events read per batch when only counting. */
const COUNT_BATCH = 1_000;

/**
 * Reads a replay's window from the event log (through EventsService, in feed order) a batch at a time and
 * chooses what to emit (webhook-replay.rules): shared by the API (total, dryRun) and the worker (the run).
 */
@Injectable()
export class WebhookReplaySelector {
  constructor(
    private readonly events: EventsService,
    private readonly replays: WebhookReplaysRepository,
  ) {}

  async next(manager: EntityManager, scope: ReplayScope, after: ReplayCursor | undefined, limit: number): Promise<ReplayBatch> {
    const events = await this.events.windowAfter(scope.accountId, scope, after, limit);
    const lastEvent = events[events.length - 1];
    const statuses = await this.replays.statusesOfEvents(
      manager,
      scope.accountId,
      scope.subscriptionId,
      events.map((event) => event.id),
    );
    const { emit, skipped } = selectForReplay(events, { ...scope, statuses });
    return { emit, skipped, last: lastEvent?.position, exhausted: events.length < limit };
  }

  /** How many deliveries the replay would emit now (dryRun, and a replay's total). */
  async count(manager: EntityManager, scope: ReplayScope): Promise<number> {
    let total = 0;
    let after: ReplayCursor | undefined;
    for (;;) {
      const batch = await this.next(manager, scope, after, COUNT_BATCH);
      total += batch.emit.length;
      if (batch.exhausted || !batch.last) return total;
      after = batch.last;
    }
  }
}
