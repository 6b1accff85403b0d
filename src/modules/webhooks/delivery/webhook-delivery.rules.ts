import type { KeyObject } from 'node:crypto';
import { signPayload } from './webhook-signer.rules';
import { errorChain } from '../../../platform/errors/error-chain';
import type { AttemptErrorClass } from '../webhook-delivery.entity';
import type { AttemptReport } from './webhook-poster';

/**
 * Pure pieces of a delivery attempt: the body envelope and the request headers (spec 6.1), the
 * capped response snippet kept in the delivery log, and the text of a failed attempt.
 */

/** What an envelope is built from: an event row, or a test delivery's stored synthetic payload. */
export interface EnvelopeSource {
  clientRequestId: string;
  apiRequestId: string;
  targetAccountId: string;
  createdAt: string;
  eventName: string;
  results: unknown[];
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
}): EnvelopeSource {
  return {
    clientRequestId: event.clientRequestId,
    apiRequestId: event.apiRequestId,
    targetAccountId: event.accountId,
    createdAt: event.createdAt.toISOString(),
    eventName: event.eventName,
    results: event.results,
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

/** Bytes of the response body kept per attempt. */
export const RESPONSE_SNIPPET_MAX_BYTES = 1024;

/** The first `maxBytes` bytes as text, never ending inside a UTF-8 sequence. */
export function capSnippet(bytes: Buffer, maxBytes = RESPONSE_SNIPPET_MAX_BYTES): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let cut = maxBytes;
  // bytes[cut] is the first byte dropped; step back while it continues a multi-byte sequence.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString('utf8');
}

/** Any 2xx delivers (spec 6.1); anything else, redirects included, is a failed attempt. */
export function isSuccessStatus(statusCode: number): boolean {
  return statusCode >= 200 && statusCode <= 299;
}

/** errorMessage of an attempt that got an answer: null on 2xx. */
export function responseErrorMessage(statusCode: number, location: string | undefined): string | null {
  if (isSuccessStatus(statusCode)) return null;
  if (statusCode >= 300 && statusCode <= 399) {
    return location
      ? `redirect not followed (HTTP ${statusCode} to ${location.slice(0, 200)})`
      : `redirect not followed (HTTP ${statusCode})`;
  }
  return `non-2xx response (HTTP ${statusCode})`;
}

/** undici's own time-outs, set to the attempt's deadline too: whichever of them and the deadline fires first, the attempt timed out. */
const DEADLINE_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** errorMessage of an attempt that got no answer (time-out, refused connection, reset...). */
export function networkErrorMessage(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut || errorCodes(error).some((code) => DEADLINE_CODES.has(code))) return `timed out after ${timeoutMs} ms`;
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code;
  const message = err?.cause?.message ?? err?.message ?? String(error);
  return code ? `network error: ${code} ${message}`.slice(0, 500) : `network error: ${message}`.slice(0, 500);
}

/** The log's text for an attempt whose worker died (or lost the database) before recording it. */
export const LOST_ATTEMPT_MESSAGE = 'outcome unknown: the attempt was not recorded in time (worker stopped or database unreachable)';
/** The log's text for a pending delivery stopped because its subscription is disabled. */
export const SUBSCRIPTION_DISABLED_MESSAGE = 'subscription disabled';

/**
 * Why a delivery job makes no attempt: the delivery is gone (subscription deleted), finished, the job is
 * a stale duplicate, another run holds this attempt's claim, or its signing secret does not open.
 */
export type DroppedReason = 'missing' | 'finished' | 'stale' | 'in_flight' | 'unsignable';

/** Why an attempt could not be claimed, from the delivery's row as it is now (undefined: gone). */
export function whyUnclaimed(row: { status: string; attemptCount: number } | undefined, expectedAttemptCount: number): DroppedReason {
  if (!row) return 'missing';
  if (row.status !== 'pending') return 'finished';
  if (row.attemptCount !== expectedAttemptCount) return 'stale';
  return 'in_flight';
}

/** The attempt's result as the metrics and logs name it. */
export function attemptResult(report: AttemptReport): string {
  if (report.outcome === 'ok') return 'success';
  if (report.outcome === 'lost') return 'lost';
  if (report.outcome === 'fatal') return report.errorMessage === SUBSCRIPTION_DISABLED_MESSAGE ? 'disabled' : 'url_rule';
  if (report.responseCode !== null) return 'http_error';
  return report.errorMessage?.startsWith('timed out') ? 'timeout' : 'network_error';
}

/** Error codes of a failure (the error's, its causes' and, for happy eyeballs, each attempt's), outermost first. */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (const link of errorChain(error, 20)) {
    const { code } = link as { code?: unknown };
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA']);
const TOO_LARGE_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_EXCEEDED_MAX_SIZE']);
const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|UNABLE_TO_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/**
 * The error class of an attempt that got no answer: `timeout` (the deadline or one of undici's),
 * `dns`, `refused`, `tooLarge` (headers over undici's limit), `tls` (a TLS error code, or the
 * connection failing after TCP connected and before its handshake ended), else `network` (reset,
 * unreachable…).
 */
export function networkErrorClass(error: unknown, context: { timedOut: boolean; duringTlsHandshake: boolean }): AttemptErrorClass {
  const codes = errorCodes(error);
  if (context.timedOut || codes.some((code) => TIMEOUT_CODES.has(code))) return 'timeout';
  if (codes.some((code) => DNS_CODES.has(code))) return 'dns';
  if (codes.includes('ECONNREFUSED')) return 'refused';
  if (codes.some((code) => TOO_LARGE_CODES.has(code))) return 'tooLarge';
  if (context.duringTlsHandshake || codes.some((code) => TLS_CODE.test(code))) return 'tls';
  return 'network';
}

/** The error class of a URL rule broken at delivery time: a name that does not resolve is `dns`, anything else `urlRule`. */
export function urlRuleErrorClass(violation: string): AttemptErrorClass {
  return violation === 'unresolvable' ? 'dns' : 'urlRule';
}

/** Response snippets are kept this long after their attempt, then dropped by the retention task (the attempt stays). */
export const SNIPPET_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** When this attempt's snippet is to be dropped: null when it kept none (an empty body keeps nothing worth dropping). */
export function snippetExpiry(attempt: { at: string; responseSnippet: string | null }): string | null {
  return attempt.responseSnippet ? new Date(Date.parse(attempt.at) + SNIPPET_RETENTION_MS).toISOString() : null;
}
