import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { Agent, Dispatcher } from 'undici';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { CheckedUrl, OutboundUrlPolicy, policyViolationOf } from '../../../platform/net/outbound-url-policy';
import { UrlPolicyError } from '../../../platform/net/url-policy.rules';
import { AttemptOutcome } from './webhook-backoff.rules';
import {
  capSnippet,
  isSuccessStatus,
  networkErrorMessage,
  RESPONSE_SNIPPET_MAX_BYTES,
  responseErrorMessage,
} from './webhook-delivery.rules';

/** How an attempt ended, as the delivery log keeps it: the POST's answer, or why there was none. */
export interface AttemptReport {
  outcome: AttemptOutcome;
  responseCode: number | null;
  responseSnippet: string | null;
  errorMessage: string | null;
}

/** Response bytes read past the snippet so a keep-alive socket can be reused; a longer body closes it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * The HTTP side of an attempt (worker only): the URL rules checked again, then one POST through a
 * shared keep-alive agent whose connect-time lookup repeats the address check, under one deadline of
 * WEBHOOK_TIMEOUT_MS for connect, headers and body. Redirects are answers, never followed.
 */
@Injectable()
export class WebhookPoster implements OnApplicationShutdown {
  private readonly agent: Agent;

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
  async check(url: string): Promise<CheckedUrl | AttemptReport> {
    try {
      return await this.policy.check(url, { requireHttps: true });
    } catch (error) {
      if (error instanceof UrlPolicyError) return violation(error);
      throw error;
    }
  }

  async post(url: URL, headers: Record<string, string>, body: string): Promise<AttemptReport> {
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
      return {
        outcome: 'failed',
        responseCode,
        responseSnippet: null,
        errorMessage: networkErrorMessage(error, signal.aborted, timeoutMs),
      };
    }
  }
}

export function isAttemptReport(value: CheckedUrl | AttemptReport): value is AttemptReport {
  return 'outcome' in value;
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
