import { Inject, Injectable, Logger, BeforeApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { Coalescer } from '../../../platform/concurrency/coalescer';
import { KeyedConcurrencyLimiter } from '../../../platform/concurrency/keyed-limiter';
import { RecordAttemptInput, RecordAttemptResult, WebhookAttemptsRepository } from '../webhook-attempts.repository';
import { WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { DeliveryRow } from '../webhook-delivery.row';
import { DeliveryAttempt } from '../webhook-delivery.entity';
import { DeliveryJobData, WebhookQueue } from '../webhook-queue.service';
import { NextDeliveryState, settleAttempt } from './webhook-backoff.rules';
import {
  attemptResult,
  deliveryHeaders,
  envelopeBody,
  DroppedReason,
  EnvelopeSource,
  LOST_ATTEMPT_MESSAGE,
  SUBSCRIPTION_DISABLED_MESSAGE,
  testEnvelopeSource,
  webhookUserAgent,
  whyUnclaimed,
} from './webhook-delivery.rules';
import { Metrics } from '../../../platform/metrics/metrics';
import { AttemptReport, isAttemptReport, WebhookPoster } from './webhook-poster';
import { DeliverySigning, DeliverySigningSecrets } from './delivery-signing-secrets';
import { WebhookOperationalEvents } from './webhook-operational-events.service';
import { WebhookPacing } from './webhook-pacing.service';
import { WebhookEnvelopeSources } from './webhook-envelope-sources';

/**
 * Concurrent attempts share their claim-and-load and record queries: up to this many rows per query,
 * and one query of each kind at a time, so the attempts arriving while it runs gather into the next.
 * (With four at a time, batches under load held one or two attempts: about 2.5 statements per delivery
 * in S5, a third of the worker's CPU in `pg`; with one, fan-out ran about 20% faster.)
 */
const QUERY_BATCH = 100;
const QUERIES_IN_PARALLEL = 1;
/**
 * An attempt's claim holds this long unless renewed; the worker renews the claims of its running
 * attempts every CLAIM_RENEW_MS, so a claim runs out only when its worker is gone (killed, or cut off
 * from the database): the sweep then records the attempt as lost within about this long.
 */
export const CLAIM_LEASE_MS = 5_000;
const CLAIM_RENEW_MS = 1_500;
/** A failed record write of an attempt that was sent is tried again after these waits (while its claim is renewed). */
const RECORD_RETRY_DELAYS_MS = [200, 600];
/** Time for running attempts to record their outcome once their POST ended, at shutdown. */
const RECORD_WITHIN_MS = 2_000;
/** Lost attempts recovered per sweep run. */
const LOST_BATCH = 500;

export type AttemptResult =
  /** Nothing to do (see DroppedReason). */
  | { kind: 'dropped'; reason: DroppedReason }
  /** The subscription already has its share of concurrent calls: try this job again shortly. */
  | { kind: 'busy'; subscriptionId: string }
  /** Attempted (or stopped): `recorded` false when another run of the same attempt recorded it first. */
  | { kind: 'attempted'; state: NextDeliveryState; recorded: boolean };

/** Everything one attempt needs: the claimed delivery, its subscription, and what the envelope is built from. */
export interface DeliveryWork extends DeliveryRow {
  envelopeSource: EnvelopeSource;
}

/** What a claim-and-load gives one job: its claimed attempt, or why there is none. */
type Claimed = { work: DeliveryWork } | { dropped: DroppedReason };

interface AttemptRef {
  id: string;
  expectedAttemptCount: number;
}

/** What to record of an attempt: its report, when it started and took, and the claim it settles. */
interface AttemptRecord {
  report: AttemptReport;
  at: Date;
  durationMs: number | null;
  claim: RecordAttemptInput['claim'];
  /** Not the receiver's failure: never counts towards auto-disable. */
  uncounted?: boolean;
}

const DISABLED_REPORT: AttemptReport = {
  outcome: 'fatal',
  responseCode: null,
  responseSnippet: null,
  errorMessage: SUBSCRIPTION_DISABLED_MESSAGE,
};
const LOST_REPORT: AttemptReport = { outcome: 'lost', responseCode: null, responseSnippet: null, errorMessage: LOST_ATTEMPT_MESSAGE };

/**
 * One delivery attempt (worker side): load, check the URL again, claim the attempt in the database,
 * sign, POST, record the attempt and the subscription's failure counter atomically, and schedule the
 * retry. The claim makes each attempt go out once: a job run again finds it claimed or recorded, and
 * an attempt whose worker died is recorded as lost by the sweep once its claim runs out, then sent
 * again as the next attempt (never with the same webhook-retry-count).
 */
@Injectable()
export class WebhookDeliveryService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly limiter: KeyedConcurrencyLimiter;
  private readonly userAgent: string;
  private readonly claims: Coalescer<AttemptRef, Claimed>;
  private readonly releases: Coalescer<AttemptRef, undefined>;
  private readonly records: Coalescer<RecordAttemptInput, boolean>;
  /** Deliveries whose attempt this process has claimed and not settled yet: their claims are renewed. */
  private readonly running = new Set<string>();
  private renewal?: NodeJS.Timeout;
  /** Attempts being sent or recorded (shutdown waits for them). */
  private readonly sending = new Set<Promise<AttemptResult>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: WebhookDeliveriesRepository,
    private readonly attempts: WebhookAttemptsRepository,
    private readonly envelopes: WebhookEnvelopeSources,
    private readonly poster: WebhookPoster,
    private readonly queue: WebhookQueue,
    private readonly metrics: Metrics,
    private readonly secrets: DeliverySigningSecrets,
    private readonly operational: WebhookOperationalEvents,
    private readonly pacing: WebhookPacing,
  ) {
    const { concurrencyPerSubscription } = config.webhook;
    // Up to the limit call at once; more wait in memory while that is quick, the rest are parked in the queue.
    this.limiter = new KeyedConcurrencyLimiter(concurrencyPerSubscription);
    this.userAgent = webhookUserAgent(config.version);
    this.claims = new Coalescer((refs) => this.claimWork(refs), QUERY_BATCH, QUERIES_IN_PARALLEL);
    this.releases = new Coalescer<AttemptRef, undefined>(
      async (refs) => (await this.attempts.releaseClaims(refs), refs.map(() => undefined)),
      QUERY_BATCH,
      1,
    );
    this.records = new Coalescer((inputs) => this.attempts.recordAttempts(inputs), QUERY_BATCH, QUERIES_IN_PARALLEL);
  }

  /**
   * After the workers closed (QueueShutdown), so attempts still running at shutdown keep their claims;
   * attempts a parked batch left running are waited for too (up to the request time-out and 2 s to record).
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.sending.size > 0) {
      const bound = sleep(this.config.webhook.timeoutMs + RECORD_WITHIN_MS, undefined, { ref: false });
      await Promise.race([Promise.allSettled([...this.sending]), bound]);
    }
    clearInterval(this.renewal);
  }

  /** True when an attempt for this subscription would come back busy: its job can be parked before any query. */
  isSaturated(subscriptionId: string): boolean {
    return this.limiter.isSaturated(subscriptionId);
  }

  /** How long to park a busy subscription's job: about one of its calls. */
  parkDelayMs(subscriptionId: string): number {
    return this.limiter.parkDelayMs(subscriptionId);
  }

  /**
   * One attempt of a queue job: claimed and loaded (a job whose attempt is finished, stale or held by
   * another run is dropped), then sent and recorded while this process renews the claim. An attempt
   * that is claimed but then not sent (its subscription busy, its secret not opening) gives its claim back.
   */
  async attempt(job: DeliveryJobData): Promise<AttemptResult> {
    const ref = { id: job.deliveryId, expectedAttemptCount: job.attempt };
    const claimed = await this.claims.call(ref);
    if ('dropped' in claimed) return { kind: 'dropped', reason: claimed.dropped };
    const { work } = claimed;
    this.holdClaim(work.id);
    const ready = this.prepare(work);
    if (ready.kind === 'stopped') return ready.result;
    if (ready.kind === 'unsignable') {
      await this.releaseClaims([work]);
      return { kind: 'dropped', reason: 'unsignable' };
    }
    let release: (() => void) | null = null;
    try {
      // Paced (a start within about a second, else the job is parked), then one of the subscription's slots.
      if (await this.pacing.startOne(work)) release = await this.limiter.acquire(work.subscriptionId);
    } catch (error) {
      await this.releaseClaims([work]);
      throw error;
    }
    if (!release) {
      await this.releaseClaims([work]);
      return { kind: 'busy', subscriptionId: work.subscriptionId };
    }
    return this.sendClaimed(work, ready.signing, release);
  }

  /**
   * A subscription's batch (WebhookBatches): claims up to `limit` of its due attempts with ids from
   * `fromId` on, in one statement, oldest first, with what their envelopes are built from; this
   * process renews their claims until each is settled or given back. (A delivery whose event is gone
   * keeps its claim until it runs out, as a single attempt's does: the sweep records it.)
   */
  async claimDue(
    subscription: { accountId: string; id: string },
    fromId: string,
    limit: number,
  ): Promise<{ works: DeliveryWork[]; claimed: number }> {
    const rows = await this.attempts.claimDue(subscription, fromId, limit, CLAIM_LEASE_MS);
    for (const row of rows) this.holdClaim(row.id);
    let sources: Map<string, EnvelopeSource>;
    try {
      sources = await this.envelopes.of(rows.flatMap((row) => (row.eventId ? [{ accountId: row.accountId, id: row.eventId }] : [])));
    } catch (error) {
      // None will be sent: the claims go back, or (database gone) run out for the sweep. Left held, they would be
      // renewed for ever once the database is back: pending, claimed, never sent (an outage between the two statements).
      await this.releaseClaims(rows).catch(() => undefined);
      throw error;
    }
    return {
      works: rows.flatMap((row): DeliveryWork[] => {
        if (row.eventId === null) return [{ ...row, envelopeSource: testEnvelopeSource(row.testPayload, row) }];
        const source = sources.get(row.eventId);
        if (source) return [{ ...row, envelopeSource: source }];
        this.running.delete(row.id); // Its event is gone: not renewed, so its claim runs out.
        return [];
      }),
      claimed: rows.length,
    };
  }

  /**
   * What a claimed attempt needs before its POST: its subscription's secrets and keys, or, when it is not to be
   * sent, the attempt's result (disabled: recorded as stopped; unsignable: its claim given back).
   */
  prepare(
    work: DeliveryWork,
  ): { kind: 'ready'; signing: DeliverySigning } | { kind: 'stopped'; result: Promise<AttemptResult> } | { kind: 'unsignable' } {
    if (!work.subscription.enabled) {
      // Disabled (by the owner or auto-disabled): pending deliveries stop here and never count.
      const result = this.finish(work, { report: DISABLED_REPORT, at: new Date(), durationMs: 0, claim: 'held', uncounted: true }).finally(
        () => this.running.delete(work.id),
      );
      return { kind: 'stopped', result };
    }
    const signing = this.secrets.forDelivery(work);
    return signing ? { kind: 'ready', signing } : { kind: 'unsignable' };
  }

  /** Sends a claimed attempt holding one of its subscription's slots (`release` frees it), then records it. */
  sendClaimed(work: DeliveryWork, signing: DeliverySigning, release: () => void): Promise<AttemptResult> {
    const sending = this.sendAndRecord(work, signing, release);
    this.sending.add(sending);
    void sending.catch(() => undefined).finally(() => this.sending.delete(sending));
    return sending;
  }

  private async sendAndRecord(work: DeliveryWork, signing: DeliverySigning, release: () => void): Promise<AttemptResult> {
    try {
      let sent: AttemptRecord;
      try {
        sent = await this.send(work, signing);
      } finally {
        release();
      }
      return await this.finish(work, sent);
    } finally {
      this.running.delete(work.id);
    }
  }

  /** Gives back the claims of attempts this process claimed and will not send now (they are due again at once). */
  async releaseClaims(works: Array<Pick<DeliveryRow, 'id' | 'attemptCount'>>): Promise<void> {
    for (const work of works) this.running.delete(work.id);
    await Promise.all(works.map((work) => this.releases.call({ id: work.id, expectedAttemptCount: work.attemptCount })));
  }

  /** How many more attempts of this subscription this process would take now (free slots, and waiters it would keep). */
  room(subscriptionId: string, max: number): number {
    return this.limiter.room(subscriptionId, max);
  }

  /** A slot of the subscription's concurrency, or null when it would wait too long (see KeyedConcurrencyLimiter). */
  acquireSlot(subscriptionId: string): Promise<(() => void) | null> {
    return this.limiter.acquire(subscriptionId);
  }

  /**
   * Attempts whose claim ran out with nobody recording them (their worker died, or could not reach the
   * database): each is recorded as a failed attempt of unknown outcome, and the next one is sent at once
   * while retries remain. Returns how many were recorded.
   */
  async recoverLostAttempts(accountIds?: string[]): Promise<number> {
    const lost = await this.attempts.lostAttempts(LOST_BATCH, accountIds);
    if (lost.length === 0) return 0;
    const rows = await this.repository.loadDeliveries(lost.map((attempt) => attempt.id));
    const results = await Promise.all(
      lost.map(async ({ attemptCount, inFlightSince }, i) => {
        const row = rows[i];
        if (!row || row.status !== 'pending' || row.attemptCount !== attemptCount) return false;
        const result = await this.finish(row, {
          report: LOST_REPORT,
          at: inFlightSince,
          durationMs: null,
          claim: 'expired',
          uncounted: true,
        });
        return result.kind === 'attempted' && result.recorded;
      }),
    );
    return results.filter(Boolean).length;
  }

  /**
   * Claims and loads a batch of attempts with what their envelopes are built from: the deliveries (one
   * statement), then the events not seen lately through the event log's service. Those not claimed
   * are looked up to say why (rare: a job run twice, a stale one). An event delivery whose event is
   * gone (retention deleted both in between) counts as gone too.
   */
  private async claimWork(refs: AttemptRef[]): Promise<Claimed[]> {
    const rows = await this.attempts.claimForSending(refs, CLAIM_LEASE_MS);
    const unclaimed = refs.filter((_, i) => !rows[i]);
    const current = unclaimed.length > 0 ? await this.repository.loadDeliveries(unclaimed.map((ref) => ref.id)) : [];
    const why = new Map(unclaimed.map((ref, i) => [ref, whyUnclaimed(current[i], ref.expectedAttemptCount)]));
    const sources = await this.envelopes.of(rows.flatMap((row) => (row?.eventId ? [{ accountId: row.accountId, id: row.eventId }] : [])));
    return refs.map((ref, i): Claimed => {
      const row = rows[i];
      if (!row) return { dropped: why.get(ref)! };
      if (row.eventId === null) return { work: { ...row, envelopeSource: testEnvelopeSource(row.testPayload, row) } };
      const source = sources.get(row.eventId);
      return source ? { work: { ...row, envelopeSource: source } } : { dropped: 'missing' };
    });
  }

  /** Renews this attempt's claim until it is settled (every CLAIM_RENEW_MS, one statement for all of them). */
  private holdClaim(deliveryId: string): void {
    this.running.add(deliveryId);
    this.renewal ??= setInterval(() => {
      if (this.running.size === 0) return;
      this.attempts
        .renewClaims([...this.running], CLAIM_LEASE_MS)
        .catch((error: Error) => this.logger.warn(`renewing ${this.running.size} attempt claim(s) failed: ${error.message}`));
    }, CLAIM_RENEW_MS);
    this.renewal.unref();
  }

  /** Checks the URL again and POSTs the attempt signed with `signing`'s secrets (and v1a keys). */
  private async send(work: DeliveryWork, { secrets, signingKeys }: DeliverySigning): Promise<AttemptRecord> {
    const checkedAt = new Date();
    const checked = await this.poster.check(work.subscription.url);
    if (isAttemptReport(checked)) return { report: checked, at: checkedAt, durationMs: Date.now() - checkedAt.getTime(), claim: 'held' };

    const at = new Date();
    const started = performance.now();
    const body = envelopeBody(work.envelopeSource, at, { test: work.test });
    const headers = deliveryHeaders({
      deliveryId: work.id,
      body,
      now: at,
      secrets,
      signingKeys,
      retryCount: work.attemptCount,
      maxRetries: work.subscription.maxRetries,
      userAgent: this.userAgent,
    });
    const report = await this.poster.post(checked, headers, body);
    return { report, at, durationMs: Math.round(performance.now() - started), claim: 'held' };
  }

  /** Records the attempt (and the failure counter) and schedules the retry, if any. */
  private async finish(work: DeliveryRow, { report, at, durationMs, claim, uncounted = false }: AttemptRecord): Promise<AttemptResult> {
    const { attemptCount, state, counter, attempt, backpressureUntil } = settleAttempt({
      report,
      at,
      durationMs,
      uncounted,
      delivery: { ...work, maxRetries: work.subscription.maxRetries },
      retryBaseMs: this.config.webhook.retryBaseMs,
      now: new Date(),
    });
    const result = await this.record(work, {
      id: work.id,
      expectedAttemptCount: work.attemptCount,
      attempt,
      status: state.status,
      nextRetryAt: state.nextRetryAt,
      counter,
      backpressureUntil,
      claim,
    });
    if (!result.recorded) {
      // Another run of this attempt (or the sweep, once the claim ran out) got there first.
      return { kind: 'attempted', state, recorded: false };
    }
    if (result.autoDisabled) {
      this.logger.warn(`subscription ${work.subscriptionId} disabled (${result.disabledReason})`);
    }
    this.observe(work, attempt, attemptCount, report, state.status, result.autoDisabled);
    // A subscription the engine had disabled delivers again: webhook.recovered (extension).
    if (state.status === 'delivered' && !work.test && work.subscription.dark) await this.operational.recovered(work);
    if (state.status === 'pending') {
      // The next attempt after a lost one (its worker died) is overdue: it goes ahead of the backlog.
      const ahead = claim === 'expired';
      await this.queue.enqueueDelivery(work.id, {
        attempt: attemptCount,
        delayMs: state.delayMs,
        subscriptionId: work.subscriptionId,
        ahead,
      });
    }
    return { kind: 'attempted', state, recorded: true };
  }

  /** One log line and the metrics per recorded attempt (never the body, headers or signature). */
  private observe(
    work: DeliveryRow,
    attempt: DeliveryAttempt,
    attemptCount: number,
    report: AttemptReport,
    status: NextDeliveryState['status'],
    autoDisabled: boolean,
  ): void {
    const result = attemptResult(report);
    this.metrics.observeAttempt({ result, durationMs: attempt.durationMs, outcome: status, autoDisabled });
    this.logger.log(
      {
        deliveryId: work.id,
        subscriptionId: work.subscriptionId,
        attempt: attemptCount,
        outcome: status === 'pending' ? 'retrying' : status,
        result,
        responseCode: attempt.responseCode,
        durationMs: attempt.durationMs,
      },
      'webhook attempt',
    );
  }

  /**
   * One record write. Increments (permanent failures, rare) go alone: the auto-disable threshold needs
   * exact counting; the rest are batched. An attempt that was sent keeps its outcome: a failed write is
   * tried again while its claim holds, and past that the sweep records it as lost.
   */
  private async record(work: DeliveryRow, input: RecordAttemptInput): Promise<RecordAttemptResult> {
    for (let retry = 0; ; retry++) {
      try {
        // (With webhook.disabled in the same transaction when it disables the subscription.)
        if (input.counter === 'increment' || input.counter === 'gone') return await this.operational.recordCountedFailure(work, input);
        return { recorded: await this.records.call(input), autoDisabled: false };
      } catch (error) {
        if (input.claim !== 'held' || retry >= RECORD_RETRY_DELAYS_MS.length) throw error;
        this.logger.warn(
          `recording attempt ${input.expectedAttemptCount} of ${input.id} failed, trying again: ${(error as Error).message}`,
        );
        await sleep(RECORD_RETRY_DELAYS_MS[retry]);
      }
    }
  }
}
