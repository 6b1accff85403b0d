import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { CheckedUrl, OutboundUrlPolicy, policyViolationOf } from '../../../platform/net/outbound-url-policy';
import { UrlPolicyError } from '../../../platform/net/url-policy.rules';
import { EventsService } from '../../events/events.service';
import { AttemptOutcome, failureCounterEffect, nextDeliveryState, NextDeliveryState } from './webhook-backoff.rules';
import { Coalescer } from '../../../platform/concurrency/coalescer';
import { DeliveryRow, RecordAttemptInput, WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { DeliveryAttempt } from '../webhook-delivery.entity';
import {
  buildEnvelope,
  capSnippet,
  deliveryHeaders,
  EnvelopeSource,
  eventEnvelopeSource,
  isSuccessStatus,
  networkErrorMessage,
  RESPONSE_SNIPPET_MAX_BYTES,
  responseErrorMessage,
  testEnvelopeSource,
} from './webhook-delivery.rules';
import { DeliveryJobData, WebhookQueue } from '../webhook-queue.service';
import { signingSecrets } from './webhook-signer.rules';
import { KeyedConcurrencyLimiter } from '../../../platform/concurrency/keyed-limiter';

/** Concurrent attempts share their load and record queries: up to this many rows per query, this many queries at once. */
const QUERY_BATCH = 100;
const QUERIES_IN_PARALLEL = 4;

/** Response bytes read past the snippet so a keep-alive socket can be reused; a longer body closes it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * Envelope sources of recently loaded events kept in memory: event rows never change, and a fan-out's
 * deliveries of one event arrive together, so most load batches need no event query at all. Emptied
 * when full (a bound, not an LRU: the locality is short).
 */
const RECENT_EVENTS_MAX = 1_000;

export const SUBSCRIPTION_DISABLED_MESSAGE = 'subscription disabled';

export type AttemptResult =
  /** Nothing to do: the delivery is gone (subscription deleted), finished, or this job is a stale duplicate. */
  | { kind: 'dropped'; reason: 'missing' | 'finished' | 'stale' }
  /** The subscription already has its share of concurrent calls: try this job again shortly. */
  | { kind: 'busy'; subscriptionId: string }
  /** Attempted (or stopped): `recorded` false when another run of the same attempt recorded it first. */
  | { kind: 'attempted'; state: NextDeliveryState; recorded: boolean };

/** Everything one attempt needs: the delivery, its subscription, and what the envelope is built from. */
interface DeliveryWork extends DeliveryRow {
  envelopeSource: EnvelopeSource;
}

/** How an attempt ended, as the delivery log keeps it: the POST's answer, or why there was none. */
interface AttemptReport {
  outcome: AttemptOutcome;
  responseCode: number | null;
  responseSnippet: string | null;
  errorMessage: string | null;
}

/**
 * One delivery attempt (worker side): load, check the URL again, sign, POST through one shared
 * keep-alive agent (whose connect-time lookup repeats the address check, redirects never followed),
 * record the attempt and the subscription's failure counter atomically, and schedule the retry.
 */
@Injectable()
export class WebhookDeliveryService implements OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly agent: Agent;
  private readonly limiter: KeyedConcurrencyLimiter;
  /** Event id → envelope source (see RECENT_EVENTS_MAX). */
  private readonly recentEvents = new Map<string, EnvelopeSource>();
  private readonly userAgent: string;
  private readonly loads: Coalescer<string, DeliveryWork | undefined>;
  private readonly records: Coalescer<RecordAttemptInput, boolean>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: WebhookDeliveriesRepository,
    private readonly events: EventsService,
    private readonly policy: OutboundUrlPolicy,
    private readonly queue: WebhookQueue,
  ) {
    const { timeoutMs, concurrencyPerSubscription } = config.webhook;
    this.agent = policy.createAgent({ connectTimeoutMs: timeoutMs, keepAliveTimeoutMs: 4_000 });
    // Up to the limit call at once; more wait in memory while that is quick, the rest are parked in the queue.
    this.limiter = new KeyedConcurrencyLimiter(concurrencyPerSubscription);
    this.userAgent = `PropertyOps-Webhooks/${config.version}`;
    this.loads = new Coalescer((ids) => this.loadWork(ids), QUERY_BATCH, QUERIES_IN_PARALLEL);
    this.records = new Coalescer((inputs) => this.repository.recordAttempts(inputs), QUERY_BATCH, QUERIES_IN_PARALLEL);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  /** True when an attempt for this subscription would come back busy: its job can be parked before any query. */
  isSaturated(subscriptionId: string): boolean {
    return this.limiter.isSaturated(subscriptionId);
  }

  /** How long to park a busy subscription's job: about one of its calls. */
  parkDelayMs(subscriptionId: string): number {
    return this.limiter.parkDelayMs(subscriptionId);
  }

  async attempt(job: DeliveryJobData): Promise<AttemptResult> {
    const work = await this.loads.call(job.deliveryId);
    if (!work) return { kind: 'dropped', reason: 'missing' };
    if (work.status !== 'pending') return { kind: 'dropped', reason: 'finished' };
    if (work.attemptCount !== job.attempt) return { kind: 'dropped', reason: 'stale' };

    if (!work.subscription.enabled) {
      // Disabled (by the owner or auto-disabled): pending deliveries stop here and never count.
      const stopped: AttemptReport = {
        outcome: 'fatal',
        responseCode: null,
        responseSnippet: null,
        errorMessage: SUBSCRIPTION_DISABLED_MESSAGE,
      };
      return this.finish(work, stopped, { at: new Date(), durationMs: 0, stoppedBecauseDisabled: true });
    }

    const release = await this.limiter.acquire(work.subscriptionId);
    if (!release) return { kind: 'busy', subscriptionId: work.subscriptionId };
    const startedAt = new Date();
    const started = performance.now();
    let report: AttemptReport;
    try {
      report = await this.send(work, startedAt);
    } finally {
      release();
    }
    return this.finish(work, report, { at: startedAt, durationMs: Math.round(performance.now() - started) });
  }

  /**
   * Deliveries of a batch of attempts with what their envelopes are built from: the deliveries, then
   * the events not seen lately through the event log's service. An event delivery whose event is gone
   * (retention deleted both in between) counts as gone too.
   */
  private async loadWork(ids: string[]): Promise<Array<DeliveryWork | undefined>> {
    const rows = await this.repository.loadDeliveries(ids);
    const sources = await this.eventSources(rows.flatMap((row) => (row?.eventId ? [{ accountId: row.accountId, id: row.eventId }] : [])));
    return rows.map((row) => {
      if (!row) return undefined;
      if (row.eventId === null) return { ...row, envelopeSource: testEnvelopeSource(row.testPayload, row) };
      const source = sources.get(row.eventId);
      return source ? { ...row, envelopeSource: source } : undefined;
    });
  }

  /** Envelope sources of these events (each of its account): recent ones from memory, the others in one query. */
  private async eventSources(refs: Array<{ accountId: string; id: string }>): Promise<Map<string, EnvelopeSource>> {
    // Collected into a map of this call's own: another batch may empty the shared one while this one waits.
    const sources = new Map<string, EnvelopeSource>();
    const missing: typeof refs = [];
    for (const ref of refs) {
      const recent = this.recentEvents.get(ref.id);
      if (recent?.targetAccountId === ref.accountId) sources.set(ref.id, recent);
      else missing.push(ref);
    }
    if (missing.length === 0) return sources;
    const events = await this.events.findForDelivery(missing);
    if (this.recentEvents.size + events.length > RECENT_EVENTS_MAX) this.recentEvents.clear();
    for (const event of events) {
      const source = eventEnvelopeSource(event);
      this.recentEvents.set(event.id, source);
      sources.set(event.id, source);
    }
    return sources;
  }

  private async send(work: DeliveryWork, now: Date): Promise<AttemptReport> {
    let checked: CheckedUrl;
    try {
      checked = await this.policy.check(work.subscription.url, { requireHttps: true });
    } catch (error) {
      if (error instanceof UrlPolicyError) return violation(error);
      throw error;
    }

    const body = JSON.stringify(buildEnvelope(work.envelopeSource, now, { test: work.test }));
    const headers = deliveryHeaders({
      deliveryId: work.id,
      body,
      now,
      secrets: signingSecrets(work.subscription, now),
      retryCount: work.attemptCount,
      maxRetries: work.subscription.maxRetries,
      userAgent: this.userAgent,
    });
    return this.post(checked.url, headers, body);
  }

  /** One POST through the pinned agent, under one deadline for connect, headers and body; a 3xx is an answer, never followed. */
  private async post(url: URL, headers: Record<string, string>, body: string): Promise<AttemptReport> {
    const { timeoutMs } = this.config.webhook;
    const signal = AbortSignal.timeout(timeoutMs);
    let responseCode: number | null = null;
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      responseCode = response.statusCode;
      const snippet = await readSnippet(response.body);
      const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
      return {
        outcome: isSuccessStatus(responseCode) ? 'ok' : 'failed',
        responseCode,
        responseSnippet: snippet,
        errorMessage: responseErrorMessage(responseCode, location),
      };
    } catch (error) {
      const refused = policyViolationOf(error);
      if (refused) return violation(refused);
      const timedOut = signal.aborted;
      return { outcome: 'failed', responseCode, responseSnippet: null, errorMessage: networkErrorMessage(error, timedOut, timeoutMs) };
    }
  }

  /** Records the attempt (and the failure counter) and schedules the retry, if any. */
  private async finish(
    work: DeliveryWork,
    report: AttemptReport,
    { at, durationMs, stoppedBecauseDisabled = false }: { at: Date; durationMs: number; stoppedBecauseDisabled?: boolean },
  ): Promise<AttemptResult> {
    const attemptCount = work.attemptCount + 1;
    const state = nextDeliveryState({
      outcome: report.outcome,
      attemptCount,
      maxRetries: work.subscription.maxRetries,
      retryBaseMs: this.config.webhook.retryBaseMs,
      now: new Date(),
    });
    const attempt: DeliveryAttempt = {
      at: at.toISOString(),
      responseCode: report.responseCode,
      responseSnippet: report.responseSnippet,
      errorMessage: report.errorMessage,
      durationMs,
    };
    const input: RecordAttemptInput = {
      id: work.id,
      expectedAttemptCount: work.attemptCount,
      attempt,
      status: state.status,
      nextRetryAt: state.nextRetryAt,
      counter: failureCounterEffect(state.status, work, stoppedBecauseDisabled),
    };
    // Increments (permanent failures, rare) go alone: the auto-disable threshold needs exact counting.
    const result =
      input.counter === 'increment'
        ? await this.repository.recordCountedFailure(input)
        : { recorded: await this.records.call(input), autoDisabled: false };
    if (!result.recorded) {
      // Another run of this attempt (a stalled job taken over) got there first.
      return { kind: 'attempted', state, recorded: false };
    }
    if (result.autoDisabled) {
      this.logger.warn(`subscription ${work.subscriptionId} disabled after repeated permanently failed deliveries`);
    }
    if (state.status === 'pending') {
      await this.queue.enqueueDelivery(work.id, { attempt: attemptCount, delayMs: state.delayMs, subscriptionId: work.subscriptionId });
    }
    return { kind: 'attempted', state, recorded: true };
  }
}

function violation(error: UrlPolicyError): AttemptReport {
  return { outcome: 'fatal', responseCode: null, responseSnippet: null, errorMessage: `URL rule violation: ${error.message}` };
}

/** The first bytes of the body as the log snippet; drains a little more for keep-alive, then gives up on the socket. */
async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (kept < RESPONSE_SNIPPET_MAX_BYTES) {
      chunks.push(chunk);
      kept += chunk.length;
    }
    if (total > DRAIN_LIMIT_BYTES) break; // leaving the loop destroys the stream (and that connection)
  }
  return capSnippet(Buffer.concat(chunks));
}
