import { Injectable, Logger } from '@nestjs/common';
import { Tx } from '../../platform/database/unit-of-work';
import { tracing } from '../../platform/tracing/tracing';
import { isIdOf, newId } from '../../platform/ids/ids';
import { InvalidCursorError } from '../../platform/pagination/cursor';
import { Page, toPage } from '../../platform/pagination/page';
import { EventCatalogue, EventName } from './event-catalogue';
import { EventEntity } from './event.entity';
import { EventResponse, toEventResponse } from './event.response';
import { EventPosition, EventsRepository, UndispatchedEvent, WindowEvent } from './events.repository';
import { EVENT_IDS } from './events.ids';

export type CommittedEventsListener = (events: EventEntity[]) => Promise<void> | void;

/**
 * The event log: modules publish inside their transaction (the outbox row commits
 * with the change), listeners such as webhook dispatch hear of it after commit, and
 * accounts read it back through the feed.
 */
@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);
  private readonly listeners: CommittedEventsListener[] = [];
  /** Events published in a transaction still open, by transaction (a Tx lives as long as its unit of work). */
  private readonly pending = new WeakMap<Tx, EventEntity[]>();

  constructor(private readonly repository: EventsRepository) {}

  /** Subscribes to events right after their transaction commits (a fast path; the worker's sweep is the guarantee). */
  onCommitted(listener: CommittedEventsListener): void {
    this.listeners.push(listener);
  }

  /** Writes the event in the transaction; only a catalogued name, with that event's `results` type (event-catalogue.ts). */
  async publish<N extends EventName>(tx: Tx, eventName: N, results: Array<EventCatalogue[N]>): Promise<EventEntity> {
    const event = await this.repository.insert(tx.manager, {
      id: newId(EVENT_IDS.event),
      accountId: tx.ctx.accountId,
      eventName,
      clientRequestId: tx.ctx.clientRequestId,
      apiRequestId: tx.ctx.requestId,
      results,
      traceparent: tracing.activeTraceparent(),
    });
    if (this.listeners.length > 0) {
      // One hand-over per transaction: its events go to the listeners together (one dispatch enqueue for
      // a booking and its reminder, or a property delete and everything it took with it).
      const committed = this.pending.get(tx);
      if (committed) {
        committed.push(event);
      } else {
        const events = [event];
        this.pending.set(tx, events);
        tx.afterCommit(() => Promise.all(this.listeners.map(async (listener) => listener(events))));
      }
    }
    return event;
  }

  // Webhook engine (worker): dispatch bookkeeping, the events a delivery sends, retention. See EventsRepository for the SQL.
  lockUndispatched(tx: Tx, ids: string[]): Promise<UndispatchedEvent[]> {
    return this.repository.lockUndispatched(tx.manager, ids);
  }

  /** The events these deliveries send, each looked up within its account; one query for the batch, duplicates asked once. */
  findForDelivery(refs: Array<{ accountId: string; id: string }>): Promise<EventEntity[]> {
    const unique = new Map(refs.map((ref) => [`${ref.accountId}/${ref.id}`, ref]));
    return this.repository.findByAccountAndId([...unique.values()]);
  }

  markDispatched(tx: Tx, ids: string[]): Promise<void> {
    return this.repository.markDispatched(tx.manager, ids);
  }

  undispatchedIds(graceMs: number, limit: number, accountIds?: string[]): Promise<string[]> {
    return this.repository.undispatchedIds(graceMs, limit, accountIds);
  }

  oldestUndispatchedAgeSeconds(): Promise<number> {
    return this.repository.oldestUndispatchedAgeSeconds();
  }

  /** Webhook replay: a batch of the account's events created in the window, in feed order after `after`. */
  windowAfter(
    accountId: string,
    window: { since: Date; until: Date },
    after: EventPosition | undefined,
    take: number,
  ): Promise<WindowEvent[]> {
    return this.repository.windowAfter(accountId, window, after, take);
  }

  // The event log's time partitions (worker: partition upkeep and retention; docs/events.md).
  createPartitions(from: Date, to: Date): Promise<string[]> {
    return this.repository.createPartitions(from, to);
  }

  dropPartitionsBefore(cutoff: Date): Promise<string[]> {
    return this.repository.dropPartitionsBefore(cutoff);
  }

  deleteDefaultBatchBefore(cutoff: Date, batchSize: number): Promise<number> {
    return this.repository.deleteDefaultBatchBefore(cutoff, batchSize);
  }

  /** GET /v1/events: the account's events oldest first; `after` is the last id of the previous page. */
  async feed(accountId: string, after: string | undefined, limit: number): Promise<Page<EventResponse>> {
    let position: { txId: string; id: string } | undefined;
    if (after !== undefined) {
      // Anything but an event id (garbage, U+0000, another kind's id) cannot be a position: no query needed.
      position = isIdOf(EVENT_IDS.event, after) ? await this.repository.positionOf(accountId, after) : undefined;
      if (!position) {
        throw new InvalidCursorError(
          `after=${after} is not an event of this account (it may be older than the 90-day retention); restart the feed without it`,
        );
      }
    }
    const rows = await this.repository.listAfter(accountId, position, limit + 1);
    return toPage(rows, limit, toEventResponse, (row) => row.id);
  }

  /**
   * The account's events newest first, optionally of one name (the account console, MCP's list_recent_events);
   * `before` is the last id of the previous page. Committed events, not held behind the feed's horizon: what
   * happened recently, not a cursor that must never skip a late commit.
   */
  async newestFirst(accountId: string, options: { eventName?: string; before?: string; limit: number }): Promise<Page<EventResponse>> {
    if (options.before !== undefined && !isIdOf(EVENT_IDS.event, options.before)) {
      throw new InvalidCursorError(`before=${options.before} is not an event id; start again without it`);
    }
    const rows = await this.repository.listNewestFirst(accountId, options.eventName, options.before, options.limit + 1);
    return toPage(rows, options.limit, toEventResponse, (row) => row.id);
  }
}
