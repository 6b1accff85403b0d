import { Injectable, Logger } from '@nestjs/common';
import { Coalescer } from '../../../../platform/concurrency/coalescer';
import { DeliveryRow, DeliveryWork } from '../../webhook-delivery.row';
import { EnvelopeSource, testEnvelopeSource } from '../../webhook-envelope.rules';
import { DroppedReason, whyUnclaimed } from './webhook-claim.rules';
import { HeadState, WebhookClaimsRepository } from './webhook-claims.repository';
import { WebhookEnvelopeSources } from './webhook-envelope-sources';

/**
 * An attempt's claim holds this long unless renewed; the worker renews the claims of its running
 * attempts every CLAIM_RENEW_MS, so a claim runs out only when its worker is gone (killed, or cut off
 * from the database): the sweep then records the attempt as lost within about this long.
 */
export const CLAIM_LEASE_MS = 5_000;
const CLAIM_RENEW_MS = 1_500;
/**
 * The engine's concurrent statements of one kind (single attempts' claims, give-backs, records) share one
 * statement: up to this many rows per statement, and one statement of each kind at a time, so the calls
 * arriving while it runs gather into the next (more at a time left statements of one or two rows).
 */
export const QUERY_BATCH = 100;
export const QUERIES_IN_PARALLEL = 1;
/** Events of an ordered subscription's next deliveries loaded with the head's (see claimDue). */
const ORDER_AHEAD = 100;
/** Lost attempts found per sweep run. */
const LOST_BATCH = 500;

/** What a claim gives one attempt: the claimed attempt with what it is sent from, or why there is none. */
export type Claimed = { work: DeliveryWork } | { dropped: DroppedReason };

/** An attempt whose claim ran out with nobody recording it: its delivery as it is now, and when it went in flight. */
export interface LostAttempt {
  row: DeliveryRow;
  inFlightSince: Date;
}

interface AttemptRef {
  id: string;
  expectedAttemptCount: number;
}

/**
 * The one owner of attempts' claims (worker side): claims an attempt, alone or a subscription's batch,
 * loaded with its subscription and what its envelope is built from; renews the claims this process holds
 * until each attempt is settled or given back; gives back claims of attempts not sent; finds the lost
 * ones (their claim ran out unrecorded: their worker died). A claim makes each attempt go out once: a job
 * run again finds its attempt claimed or recorded.
 */
@Injectable()
export class WebhookClaims {
  private readonly logger = new Logger(WebhookClaims.name);
  private readonly claims: Coalescer<AttemptRef, Claimed>;
  private readonly releases: Coalescer<AttemptRef, undefined>;
  /** Deliveries whose attempt this process has claimed and not settled yet: their claims are renewed. */
  private readonly held = new Set<string>();
  private renewal?: NodeJS.Timeout;

  constructor(
    private readonly repository: WebhookClaimsRepository,
    private readonly envelopes: WebhookEnvelopeSources,
  ) {
    this.claims = new Coalescer((refs) => this.claimWork(refs), QUERY_BATCH, QUERIES_IN_PARALLEL);
    this.releases = new Coalescer<AttemptRef, undefined>(
      async (refs) => (await this.repository.releaseClaims(refs), refs.map(() => undefined)),
      QUERY_BATCH,
      QUERIES_IN_PARALLEL,
    );
  }

  /**
   * One attempt (`attempt` = attempts already made), claimed and loaded; held (renewed) until settled or
   * given back. An attempt finished, stale or held by another run is dropped, saying why.
   */
  async claim({ deliveryId, attempt }: { deliveryId: string; attempt: number }): Promise<Claimed> {
    const claimed = await this.claims.call({ id: deliveryId, expectedAttemptCount: attempt });
    if ('work' in claimed) this.hold(claimed.work.id);
    return claimed;
  }

  /**
   * A subscription's batch: claims up to `limit` of its due attempts with ids from `fromId` on, in one
   * statement, oldest first, with what their envelopes are built from; held until each is settled or
   * given back. (A delivery whose event is gone keeps its claim until it runs out, as a single attempt's
   * does: the sweep records it.) `ordered`: the head of the subscription's order joins the batch at its turn.
   */
  async claimDue(
    subscription: { accountId: string; id: string },
    fromId: string,
    limit: number,
    ordered = false,
  ): Promise<{ works: DeliveryWork[]; claimed: number }> {
    const rows = await this.repository.claimDue(subscription, fromId, limit, CLAIM_LEASE_MS, ordered);
    return { works: await this.loaded(rows, ordered), claimed: rows.length };
  }

  /**
   * The next delivery of an order, claimed by the statement that recorded the one before it
   * (WebhookAttemptsRepository.recordAttempts): held from now on, and loaded like a claimed head.
   * Undefined when its event is gone (its claim runs out for the sweep).
   */
  async claimedInOrder(row: DeliveryRow): Promise<DeliveryWork | undefined> {
    const [work] = await this.loaded([row], true);
    return work;
  }

  /** Claimed rows held (renewed until settled) and loaded with what their envelopes are built from. */
  private async loaded(rows: DeliveryRow[], ordered: boolean): Promise<DeliveryWork[]> {
    for (const row of rows) this.hold(row.id);
    let sources: Map<string, EnvelopeSource>;
    try {
      const refs = rows.flatMap((row) => (row.eventId ? [{ accountId: row.accountId, id: row.eventId }] : []));
      // An ordered subscription is claimed one delivery at a time: the events of the next ones in its order
      // are loaded with this one's when it is not in memory, one event query per ORDER_AHEAD deliveries, not one each.
      const head = ordered ? rows.find((row) => row.inOrder && row.eventId !== null && !this.envelopes.has(row.eventId)) : undefined;
      const ahead = head ? await this.repository.eventsAhead(head.subscriptionId, ORDER_AHEAD) : [];
      sources = await this.envelopes.of([...refs, ...ahead]);
    } catch (error) {
      // None will be sent: the claims go back, or (database gone) run out for the sweep. Left held, they would be
      // renewed for ever once the database is back: pending, claimed, never sent (an outage between the two statements).
      await this.release(rows).catch(() => undefined);
      throw error;
    }
    return rows.flatMap((row): DeliveryWork[] => {
      const work = workOf(row, sources);
      if (work) return [work];
      this.held.delete(row.id); // Its event is gone: not renewed, so its claim runs out.
      return [];
    });
  }

  /** Where an ordered subscription's head stands, when a claim took none of its order. */
  headState(subscriptionId: string): Promise<HeadState> {
    return this.repository.headState(subscriptionId);
  }

  /** Gives back the claims of attempts this process claimed and will not send now (they are due again at once). */
  async release(works: Array<Pick<DeliveryRow, 'id' | 'attemptCount'>>): Promise<void> {
    for (const work of works) this.held.delete(work.id);
    await Promise.all(works.map((work) => this.releases.call({ id: work.id, expectedAttemptCount: work.attemptCount })));
  }

  /** The attempt is settled (recorded, or its record left to the sweep): its claim is no longer renewed. */
  settled(deliveryId: string): void {
    this.held.delete(deliveryId);
  }

  /** Stops renewing (shutdown, once the running attempts have settled). */
  stop(): void {
    clearInterval(this.renewal);
  }

  /**
   * Attempts whose claim ran out with nobody recording them (their worker died, or could not reach the
   * database), oldest first, loaded: those whose delivery is still pending at the attempt.
   */
  async lost(accountIds?: string[]): Promise<LostAttempt[]> {
    const lost = await this.repository.lostAttempts(LOST_BATCH, accountIds);
    if (lost.length === 0) return [];
    const rows = await this.repository.loadDeliveries(lost.map((attempt) => attempt.id));
    return lost.flatMap(({ attemptCount, inFlightSince }, i) => {
      const row = rows[i];
      return row && row.status === 'pending' && row.attemptCount === attemptCount ? [{ row, inFlightSince }] : [];
    });
  }

  /**
   * Claims and loads a batch of attempts with what their envelopes are built from: the deliveries (one
   * statement), then the events not seen lately through the event log's service. Those not claimed
   * are looked up to say why (rare: a job run twice, a stale one). An event delivery whose event is
   * gone (retention deleted both in between) counts as gone too.
   */
  private async claimWork(refs: AttemptRef[]): Promise<Claimed[]> {
    const rows = await this.repository.claimForSending(refs, CLAIM_LEASE_MS);
    const unclaimed = refs.filter((_, i) => !rows[i]);
    const current = unclaimed.length > 0 ? await this.repository.loadDeliveries(unclaimed.map((ref) => ref.id)) : [];
    const why = new Map(unclaimed.map((ref, i) => [ref, whyUnclaimed(current[i], ref.expectedAttemptCount)]));
    const sources = await this.envelopes.of(rows.flatMap((row) => (row?.eventId ? [{ accountId: row.accountId, id: row.eventId }] : [])));
    return refs.map((ref, i): Claimed => {
      const row = rows[i];
      if (!row) return { dropped: why.get(ref)! };
      const work = workOf(row, sources);
      return work ? { work } : { dropped: 'missing' };
    });
  }

  /** Renews this attempt's claim until it is settled (every CLAIM_RENEW_MS, one statement for all of them). */
  private hold(deliveryId: string): void {
    this.held.add(deliveryId);
    this.renewal ??= setInterval(() => {
      if (this.held.size === 0) return;
      this.repository
        .renewClaims([...this.held], CLAIM_LEASE_MS)
        .catch((error: Error) => this.logger.warn(`renewing ${this.held.size} attempt claim(s) failed: ${error.message}`));
    }, CLAIM_RENEW_MS);
    this.renewal.unref();
  }
}

/** A claimed row with what its envelope is built from: a test delivery's stored payload, or its event (undefined: the event is gone). */
function workOf(row: DeliveryRow, sources: Map<string, EnvelopeSource>): DeliveryWork | undefined {
  if (row.eventId === null) return { ...row, envelopeSource: testEnvelopeSource(row.testPayload, row) };
  const source = sources.get(row.eventId);
  return source && { ...row, envelopeSource: source };
}
