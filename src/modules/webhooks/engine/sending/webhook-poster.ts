import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { boundedCache } from '../../../../platform/cache/bounded-cache';
import { CheckedUrl, OutboundUrlPolicy, policyViolationOf } from '../../../../platform/net/outbound-url-policy';
import { RequestTrace, timingsOf } from '../../../../platform/net/request-trace';
import { UrlPolicyError } from '../../../../platform/net/url-policy.rules';
import { DeliveryWork } from '../../webhook-delivery.row';
import { deliveryHeaders, envelopeBody, webhookUserAgent } from '../../webhook-envelope.rules';
import { DeliverySigning } from './delivery-signing-secrets';
import { isStoppedAttempt, ReceiverAuth } from './receiver-auth';
import {
  AttemptReport,
  capSnippet,
  isSuccessStatus,
  networkErrorClass,
  networkErrorMessage,
  RESPONSE_SNIPPET_MAX_BYTES,
  responseErrorMessage,
  urlRuleErrorClass,
} from './webhook-delivery.rules';

/** An attempt as it was sent: how it ended, when it started, how long it took. */
export interface SentAttempt {
  report: AttemptReport;
  at: Date;
  durationMs: number;
}

/** The URL to POST to, and how long its check (name resolution) took. */
interface CheckedTarget extends CheckedUrl {
  checkMs: number;
}

/** Response bytes read past the snippet so a keep-alive socket can be reused; a longer body closes it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * A URL that passed its check stands checked this long, so a batch's attempts to one endpoint resolve
 * its host once rather than each (the agent's connect-time lookup still checks every new connection's
 * address); a URL that breaks a rule is checked again on the next attempt.
 */
const CHECK_HOLDS_MS = 1_000;
/** URLs remembered as checked at most. */
const CHECKED_MAX = 10_000;

/** A URL's check: running (its attempts wait for this one) or passed, and until when it holds. */
interface HeldCheck {
  result: Promise<CheckedUrl>;
  until: number;
}

/**
 * The HTTP side of an attempt (worker only): the URL rules checked again, the body built and signed,
 * then one POST through a shared keep-alive agent whose connect-time lookup repeats the address check,
 * under one deadline of WEBHOOK_TIMEOUT_MS for connect, headers and body. Redirects are answers, never
 * followed.
 */
@Injectable()
export class WebhookPoster implements OnApplicationShutdown {
  private readonly agent: Agent;
  private readonly userAgent: string;
  /** URL → its running or last passed check (see CHECK_HOLDS_MS). */
  private readonly checks = boundedCache<string, HeldCheck>(CHECKED_MAX);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly policy: OutboundUrlPolicy,
    private readonly receiverAuth: ReceiverAuth,
  ) {
    this.agent = policy.createAgent({ connectTimeoutMs: config.webhook.timeoutMs, keepAliveTimeoutMs: 4_000 });
    this.userAgent = webhookUserAgent(config.version);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  /**
   * Sends one attempt: its URL checked again, then its body POSTed, signed with `signing`'s secrets (and
   * v1a keys), with `traceparent` when given (the subscription's trace context option).
   */
  async send(work: DeliveryWork, { secrets, signingKeys }: DeliverySigning, traceparent?: string | null): Promise<SentAttempt> {
    const checkedAt = new Date();
    const checked = await this.check(work.subscription.url);
    if (isAttemptReport(checked)) return { report: checked, at: checkedAt, durationMs: Date.now() - checkedAt.getTime() };
    // Receiver authentication (issue 42): custom headers, an OAuth2 token (asked for once, shared).
    const auth = await this.receiverAuth.prepare(work);
    if (isStoppedAttempt(auth)) return { report: auth, at: checkedAt, durationMs: Date.now() - checkedAt.getTime() };

    const at = new Date();
    const started = performance.now();
    const body = envelopeBody(work.envelopeSource, at, { test: work.test });
    const headers = deliveryHeaders({
      deliveryId: work.id,
      accountId: work.accountId,
      body,
      now: at,
      secrets,
      signingKeys,
      retryCount: work.attemptCount,
      maxRetries: work.subscription.maxRetries,
      userAgent: this.userAgent,
      traceparent,
    });
    // Ours go last: the subscription's names never replace them (the API refuses those names anyway).
    const report = await this.post(checked, { ...auth.headers, ...headers }, body, auth.agent ?? this.agent);
    await this.receiverAuth.answered(auth, report.responseCode);
    return { report, at, durationMs: Math.round(performance.now() - started) };
  }

  /**
   * The URL to POST to, or the report of the rule it now breaks (a host that resolves to a private
   * address, say). Attempts arriving while their URL's check runs wait for that one check, and resume in
   * the order they arrived: a batch's POSTs keep their order (separate lookups could finish out of order).
   */
  private async check(url: string): Promise<CheckedTarget | AttemptReport> {
    const started = performance.now();
    try {
      const checked = await this.heldCheck(url, started).result;
      return { ...checked, checkMs: performance.now() - started };
    } catch (error) {
      if (error instanceof UrlPolicyError) {
        return { ...violation(error), timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: ms(started) } };
      }
      throw error;
    }
  }

  /** The URL's check that holds now, or a new one (held once it passes; forgotten when it fails). */
  private heldCheck(url: string, now: number): HeldCheck {
    const held = this.checks.get(url);
    if (held && held.until > now) return held;
    const check: HeldCheck = { result: this.policy.check(url, { requireHttps: true }), until: Infinity };
    this.checks.set(url, check);
    check.result.then(
      () => (check.until = performance.now() + CHECK_HOLDS_MS),
      () => this.checks.get(url) === check && this.checks.delete(url),
    );
    return check;
  }

  /**
   * One POST, traced: the address it reached and its timings (DNS = the check's resolution plus the
   * connection's own lookup when it opened one; connect and TLS only on a new connection).
   */
  private async post(target: CheckedTarget, headers: Record<string, string>, body: string, agent: Agent): Promise<AttemptReport> {
    const { timeoutMs } = this.config.webhook;
    const { url } = target;
    const signal = AbortSignal.timeout(timeoutMs);
    const trace = new RequestTrace();
    const traced = (): Pick<AttemptReport, 'resolvedIp' | 'timings'> => ({
      resolvedIp: trace.address ?? target.addresses[0]?.address ?? null,
      timings: timingsOf(trace, performance.now(), target.checkMs),
    });
    let responseCode: number | null = null;
    try {
      const response = await RequestTrace.during(trace, () =>
        agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers,
          body,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        }),
      );
      responseCode = response.statusCode;
      const { snippet, overLimit } = await readSnippet(response);
      const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
      const retryAfter = response.headers['retry-after'];
      return {
        outcome: isSuccessStatus(responseCode) ? 'ok' : responseCode === 410 ? 'gone' : 'failed',
        responseCode,
        responseSnippet: snippet,
        errorMessage: responseErrorMessage(responseCode, location),
        errorClass: overLimit ? 'tooLarge' : null,
        ...traced(),
        ...((responseCode === 429 || responseCode === 503) && typeof retryAfter === 'string' ? { retryAfter } : {}),
      };
    } catch (error) {
      const refused = policyViolationOf(error);
      if (refused) return { ...violation(refused), ...traced() };
      const connection = trace.connection;
      return {
        outcome: 'failed',
        responseCode,
        responseSnippet: null,
        errorMessage: networkErrorMessage(error, signal.aborted, timeoutMs),
        errorClass: networkErrorClass(error, {
          timedOut: signal.aborted,
          duringTlsHandshake: !!connection?.tls && connection.connectedAt !== undefined && connection.secureAt === undefined,
        }),
        ...traced(),
      };
    }
  }
}

function isAttemptReport(value: CheckedTarget | AttemptReport): value is AttemptReport {
  return 'outcome' in value;
}

function violation(error: UrlPolicyError): AttemptReport {
  return {
    outcome: 'fatal',
    responseCode: null,
    responseSnippet: null,
    errorMessage: `URL rule violation: ${error.message}`,
    errorClass: urlRuleErrorClass(error.violation),
    resolvedIp: null,
    timings: null,
  };
}

function ms(since: number): number {
  return Math.round((performance.now() - since) * 10) / 10;
}

/**
 * The first bytes of the body as the log snippet; drains a little more for keep-alive, then gives up on
 * the socket (`overLimit`: the body was longer than that).
 */
async function readSnippet({ statusCode, headers, body }: Dispatcher.ResponseData): Promise<{ snippet: string; overLimit: boolean }> {
  // An answer with no body (204, or Content-Length: 0, the usual acknowledgement) needs no reading loop.
  if (statusCode === 204 || headers['content-length'] === '0') {
    await body.dump();
    return { snippet: '', overLimit: false };
  }
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
  return { snippet: capSnippet(Buffer.concat(chunks)), overLimit: total > DRAIN_LIMIT_BYTES };
}
