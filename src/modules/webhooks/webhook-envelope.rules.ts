import type { KeyObject } from 'node:crypto';
import { isSandboxAccount, TEST_MODE_HEADER } from '../auth/auth.rules';
import { signPayload } from './webhook-signer.rules';

/**
 * The wire format of a webhook attempt (spec 6.1): what its body is built from, the body, and the
 * request headers. The engine sends it; the delivery log rebuilds what an attempt sent with the same rules.
 */

/** What an envelope is built from (spec 6.1's fields but notifiedAt): an event row, or a test delivery's stored synthetic payload. */
export interface EnvelopeSource {
  clientRequestId: string;
  apiRequestId: string;
  targetAccountId: string;
  createdAt: string;
  eventName: string;
  results: unknown[];
  /** The event writer's W3C trace context (never in the body): the attempt's span continues that trace. */
  traceparent?: string | null;
}

export interface WebhookEnvelope extends EnvelopeSource {
  notifiedAt: string;
  test?: true;
}

/**
 * The body of one attempt, keys in the order of spec 6.1 (legacy payloads are byte-identical),
 * `notifiedAt` stamped per attempt, and `test: true` only on synthetic deliveries.
 */
export function buildEnvelope(source: EnvelopeSource, notifiedAt: Date, options: { test: boolean }): WebhookEnvelope {
  const envelope: WebhookEnvelope = {
    clientRequestId: source.clientRequestId,
    apiRequestId: source.apiRequestId,
    targetAccountId: source.targetAccountId,
    createdAt: source.createdAt,
    eventName: source.eventName,
    results: source.results,
    notifiedAt: notifiedAt.toISOString(),
  };
  if (options.test) envelope.test = true;
  return envelope;
}

/** What JSON.stringify(buildEnvelope(…)) ends with for notifiedAt at the epoch and no `test`: cut to get the head. */
const EPOCH = new Date(0);
const EPOCH_TAIL = `,"notifiedAt":"${EPOCH.toISOString()}"}`;
/** Each envelope source's serialized head (all but notifiedAt and test), made once per source object. */
const heads = new WeakMap<EnvelopeSource, string>();

/**
 * The body of one attempt: byte for byte JSON.stringify(buildEnvelope(…)), with the event's part
 * serialized once per envelope source (a fan-out sends one event to every subscription, and the
 * sources of recent events are shared), so an attempt only appends its own `notifiedAt`.
 */
export function envelopeBody(source: EnvelopeSource, notifiedAt: Date, options: { test: boolean }): string {
  let head = heads.get(source);
  if (head === undefined) {
    head = JSON.stringify(buildEnvelope(source, EPOCH, { test: false })).slice(0, -EPOCH_TAIL.length);
    heads.set(source, head);
  }
  return `${head},"notifiedAt":"${notifiedAt.toISOString()}"${options.test ? ',"test":true' : ''}}`;
}

/** The user-agent every attempt is sent with. */
export function webhookUserAgent(version: string): string {
  return `PropertyOps-Webhooks/${version}`;
}

export interface DeliveryHeadersInput {
  deliveryId: string;
  /** The subscription's account: a sandbox's deliveries carry X-Test-Mode: true (docs/test-mode.md). */
  accountId: string;
  /** The exact body sent, as signed. */
  body: string;
  /** When the attempt starts: webhook-timestamp in unix seconds. */
  now: Date;
  /** Secrets that sign it, newest first (signingSecrets); none for the legacy webhook (no webhook-signature header). */
  secrets: readonly string[];
  /** v1a (extension) ed25519 keys that sign it too, newest first; none while the subscription has v1a off. */
  signingKeys?: readonly KeyObject[];
  /** Attempts already made: 0 on the first. */
  retryCount: number;
  maxRetries: number;
  userAgent: string;
  /** W3C trace context sent to the receiver (the subscription's traceContext option, an extension); none when absent. */
  traceparent?: string | null;
}

/** The headers of one attempt: spec 6.1's, plus user-agent; webhook-id is the delivery id, stable across retries. */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(timestamp),
    ...(input.secrets.length > 0
      ? {
          'webhook-signature': signPayload({
            deliveryId: input.deliveryId,
            timestamp,
            body: input.body,
            secrets: input.secrets,
            signingKeys: input.signingKeys,
          }),
        }
      : {}),
    'webhook-retry-count': String(input.retryCount),
    'webhook-max-retries': String(input.maxRetries),
    ...(isSandboxAccount(input.accountId) ? { [TEST_MODE_HEADER.toLowerCase()]: 'true' } : {}),
    ...(input.traceparent ? { traceparent: input.traceparent } : {}),
  };
}

/** The envelope source of an event delivery: the event row as the event log keeps it. */
export function eventEnvelopeSource(event: {
  accountId: string;
  clientRequestId: string;
  apiRequestId: string;
  createdAt: Date;
  eventName: string;
  results: unknown[];
  traceparent?: string | null;
}): EnvelopeSource {
  return {
    clientRequestId: event.clientRequestId,
    apiRequestId: event.apiRequestId,
    targetAccountId: event.accountId,
    createdAt: event.createdAt.toISOString(),
    eventName: event.eventName,
    results: event.results,
    traceparent: event.traceparent,
  };
}

/**
 * The envelope source of a test delivery. The API stores the synthetic payload in `test_payload`;
 * fields it left out fall back to the delivery row, so an older or partial payload still sends a
 * complete envelope.
 */
export function testEnvelopeSource(
  payload: Record<string, unknown> | null,
  delivery: { id: string; accountId: string; eventName: string; createdAt: Date },
): EnvelopeSource {
  const text = (key: string, fallback: string) => (typeof payload?.[key] === 'string' ? (payload[key] as string) : fallback);
  return {
    clientRequestId: text('clientRequestId', delivery.id),
    apiRequestId: text('apiRequestId', delivery.id),
    targetAccountId: delivery.accountId,
    createdAt: text('createdAt', delivery.createdAt.toISOString()),
    eventName: delivery.eventName,
    results: Array.isArray(payload?.results) ? (payload.results as unknown[]) : [],
  };
}
