import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { Agent } from 'undici';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import Redis from 'ioredis';
import { OutboundUrlPolicy } from '../../../../platform/net/outbound-url-policy';
import { REDIS } from '../../../../platform/redis/redis.module';
import { WebhookOperationalEvents } from '../settlement/webhook-operational-events.service';
import { mtlsExpired, StoredMtls } from '../../receiver-mtls.rules';
import { boundedCache } from '../../../../platform/cache/bounded-cache';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { SecretBoxError } from '../../../../platform/secrets/secret-box.rules';
import { receiverAuthContext } from '../../receiver-auth.rules';
import { DeliveryRow } from '../../webhook-delivery.row';
import { ReceiverTokens, TokenResult } from './receiver-tokens';
import { AttemptReport } from './webhook-delivery.rules';

/** What an attempt presents to its receiver: extra headers, the token they carry (a 401 drops it), the agent with its client certificate. */
export interface PreparedAuth {
  headers: Record<string, string>;
  token?: TokenResult;
  agent?: Agent;
}

/** Header sets kept open at most, by subscription and sealed value. */
const OPENED_MAX = 1_000;
/**
 * mTLS agents kept at most (one per subscription and key): an agent dropped from the cache is not closed,
 * since attempts may still use it; its idle sockets close after the keep-alive time-out and it is collected.
 */
const AGENTS_MAX = 100;
/** How long the "expiry reported" mark of a certificate lasts (one event per certificate). */
const EXPIRED_MARK_SECONDS = 30 * 24 * 3600;
const NONE: PreparedAuth = { headers: {} };

/**
 * Receiver authentication, the send step's part (issue 42): the subscription's custom headers (opened
 * from their sealed form, kept open for a while like signing secrets) and its OAuth2 bearer token
 * (ReceiverTokens). A token endpoint that fails fails the attempt before anything is POSTed
 * (`tokenRequestFailed`, retried on the usual schedule). Nothing here is logged: header values and
 * tokens never leave the request.
 */
@Injectable()
export class ReceiverAuth implements OnApplicationShutdown {
  private readonly opened = boundedCache<string, Record<string, string>>(OPENED_MAX);
  private readonly agents = boundedCache<string, Agent>(AGENTS_MAX);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly tokens: ReceiverTokens,
    private readonly policy: OutboundUrlPolicy,
    private readonly operational: WebhookOperationalEvents,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close().catch(() => undefined)));
  }

  /** The attempt's extra headers, or the report of an attempt that cannot go (no token, credentials that do not open). */
  async prepare(work: Pick<DeliveryRow, 'id' | 'accountId' | 'subscriptionId' | 'subscription'>): Promise<PreparedAuth | AttemptReport> {
    const { subscriptionId, subscription } = work;
    const auth = subscription.receiverAuth;
    if (!auth) return NONE;
    try {
      if (auth.mtls && mtlsExpired(auth.mtls, new Date())) {
        await this.reportExpired(work, auth.mtls);
        return certificateExpired(auth.mtls.certificateExpiresAt);
      }
      const agent = auth.mtls ? this.agentFor(subscriptionId, auth.mtls) : undefined;
      const headers = auth.headers ? { ...this.openHeaders(subscriptionId, auth.headers.sealed) } : {};
      if (!auth.oauth2) return { headers, agent };
      const { oauth2 } = auth;
      const token = await this.tokens.token(subscriptionId, oauth2, () =>
        this.box.open(oauth2.clientSecret, receiverAuthContext(subscriptionId, 'oauth2')),
      );
      if ('problem' in token) return tokenFailure(token.problem);
      return { headers: { ...headers, authorization: `Bearer ${token.token}` }, token, agent };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      return {
        outcome: 'failed',
        responseCode: null,
        responseSnippet: null,
        errorMessage: 'receiver credentials do not open with SECRETS_ENCRYPTION_KEY: set them again (PATCH)',
        errorClass: null,
      };
    }
  }

  /** After the receiver's answer: a 401 drops the token it refused, so the next attempt asks for a new one. */
  async answered(prepared: PreparedAuth, responseCode: number | null): Promise<void> {
    if (responseCode === 401 && prepared.token) await this.tokens.refused(prepared.token);
  }

  /**
   * webhook.clientCertificateExpired, once per certificate across workers (a Redis mark kept 30 days; a
   * failed publication removes it, so a later attempt tries again). Without Redis it is not published.
   */
  private async reportExpired(
    work: Pick<DeliveryRow, 'id' | 'accountId' | 'subscriptionId' | 'subscription'>,
    mtls: StoredMtls,
  ): Promise<void> {
    const mark = `${this.config.redisPrefix}:cert-expired:{${work.subscriptionId}}:${mtls.certificateExpiresAt}`;
    try {
      if ((await this.redis.set(mark, '1', 'EX', EXPIRED_MARK_SECONDS, 'NX')) !== 'OK') return;
      if (!(await this.operational.clientCertificateExpired(work, mtls))) await this.redis.del(mark);
    } catch {
      // Redis unreachable: the attempt still fails as it must; the event waits for a later attempt.
    }
  }

  /** The subscription's agent presenting its client certificate (and trusting only its CA, when given). */
  private agentFor(subscriptionId: string, mtls: StoredMtls): Agent {
    const key = `${subscriptionId}:${mtls.clientKey}`;
    let agent = this.agents.get(key);
    if (agent === undefined) {
      const tls = {
        cert: mtls.clientCertificate,
        key: this.box.open(mtls.clientKey, receiverAuthContext(subscriptionId, 'mtls')),
        ...(mtls.serverCaCertificate === undefined ? {} : { ca: mtls.serverCaCertificate }),
      };
      agent = this.policy.createAgent({ connectTimeoutMs: this.config.webhook.timeoutMs, keepAliveTimeoutMs: 4_000, tls });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private openHeaders(subscriptionId: string, sealed: string): Record<string, string> {
    const key = `${subscriptionId}:${sealed}`;
    let headers = this.opened.get(key);
    if (headers === undefined) {
      headers = JSON.parse(this.box.open(sealed, receiverAuthContext(subscriptionId, 'headers'))) as Record<string, string>;
      this.opened.set(key, headers);
    }
    return headers;
  }
}

/** An attempt with an expired client certificate: not sent, never retried (the subscription must be given a new one). */
function certificateExpired(expiresAt: string): AttemptReport {
  return {
    outcome: 'fatal',
    responseCode: null,
    responseSnippet: null,
    errorMessage: `mTLS client certificate expired at ${expiresAt}: set a new one (PATCH mtls)`,
    errorClass: 'clientCertificateExpired',
    resolvedIp: null,
    timings: null,
  };
}

function tokenFailure(problem: string): AttemptReport {
  return {
    outcome: 'failed',
    responseCode: null,
    responseSnippet: null,
    errorMessage: `token request failed: ${problem}`.slice(0, 500),
    errorClass: 'tokenRequestFailed',
    resolvedIp: null,
    timings: null,
  };
}

/** Whether prepare answered with a report (the attempt stops there). */
export function isStoppedAttempt(value: PreparedAuth | AttemptReport): value is AttemptReport {
  return 'outcome' in value;
}
