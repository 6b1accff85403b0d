import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { CheckedUrl, OutboundUrlPolicy, policyViolationOf } from '../../../platform/net/outbound-url-policy';
import { RequestTrace, timingsOf } from '../../../platform/net/request-trace';
import { UrlPolicyError } from '../../../platform/net/url-policy.rules';
import { AttemptErrorClass, AttemptTimings } from '../webhook-delivery.entity';
import { AttemptOutcome } from './webhook-backoff.rules';
import {
  capSnippet,
  isSuccessStatus,
  networkErrorClass,
  networkErrorMessage,
  RESPONSE_SNIPPET_MAX_BYTES,
  responseErrorMessage,
  urlRuleErrorClass,
} from './webhook-delivery.rules';

/** How an attempt ended, as the delivery log keeps it: the POST's answer, or why there was none. */
export interface AttemptReport {
  outcome: AttemptOutcome;
  responseCode: number | null;
  responseSnippet: string | null;
  errorMessage: string | null;
  /** Why there was no (usable) answer; null when there was one (`tooLarge` also marks a body past the read limit). */
  errorClass?: AttemptErrorClass | null;
  resolvedIp?: string | null;
  timings?: AttemptTimings | null;
  /** The answer's Retry-After header (429 and 503 only), as sent. */
  retryAfter?: string | null;
}

/** The URL to POST to, and how long its check (name resolution) took. */
export interface CheckedTarget extends CheckedUrl {
  checkMs: number;
}

/** Response bytes read past the snippet so a keep-alive socket can be reused; a longer body closes it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * A URL that passed its check stands checked this long, so a batch's attempts to one endpoint resolve
 * its host once rather than each (the agent's connect-time lookup still checks every new connection's
 * address); a URL that breaks a rule is checked again on every attempt.
 */
const CHECK_HOLDS_MS = 1_000;
/** URLs remembered as checked at most (emptied when full: a bound, the locality is short). */
const CHECKED_MAX = 10_000;

/**
 * The HTTP side of an attempt (worker only): the URL rules checked again, then one POST through a
 * shared keep-alive agent whose connect-time lookup repeats the address check, under one deadline of
 * WEBHOOK_TIMEOUT_MS for connect, headers and body. Redirects are answers, never followed.
 */
@Injectable()
export class WebhookPoster implements OnApplicationShutdown {
  private readonly agent: Agent;
  /** URL → its last passed check and until when it holds (see CHECK_HOLDS_MS). */
  private readonly checked = new Map<string, { target: CheckedUrl; until: number }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly policy: OutboundUrlPolicy,
  ) {
    this.agent = policy.createAgent({ connectTimeoutMs: config.webhook.timeoutMs, keepAliveTimeoutMs: 4_000 });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  /** The URL to POST to, or the report of the rule it now breaks (a host that resolves to a private address, say). */
  async check(url: string): Promise<CheckedTarget | AttemptReport> {
    const started = performance.now();
    const held = this.checked.get(url);
    if (held && held.until > started) return { ...held.target, checkMs: 0 };
    try {
      const checked = await this.policy.check(url, { requireHttps: true });
      if (this.checked.size >= CHECKED_MAX) this.checked.clear();
      this.checked.set(url, { target: checked, until: started + CHECK_HOLDS_MS });
      return { ...checked, checkMs: performance.now() - started };
    } catch (error) {
      if (error instanceof UrlPolicyError) {
        return { ...violation(error), timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: ms(started) } };
      }
      throw error;
    }
  }

  /**
   * One POST, traced: the address it reached and its timings (DNS = the check's resolution plus the
   * connection's own lookup when it opened one; connect and TLS only on a new connection).
   */
  async post(target: CheckedTarget, headers: Record<string, string>, body: string): Promise<AttemptReport> {
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
        this.agent.request({
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

export function isAttemptReport(value: CheckedTarget | AttemptReport): value is AttemptReport {
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
