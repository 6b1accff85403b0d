import type { KeyObject } from 'node:crypto';
import { signPayload } from '../../subscriptions/webhook-signer.rules';
import { errorChain } from '../../../../platform/errors/error-chain';
import type { AttemptErrorClass, AttemptTimings } from '../../webhook-delivery.entity';
import type { EnvelopeSource } from '../../webhook-delivery.row';

/**
 * Pure pieces of a delivery attempt: the body envelope and the request headers (spec 6.1), the
 * report of how it ended (the capped response snippet kept in the delivery log, the text of a failed
 * attempt), shared by the poster that makes it and the rules that settle it.
 */

/**
 * How an attempt ended: `ok` = any 2xx in time; `failed` = non-2xx, time-out or network error;
 * `fatal` = never retry (URL rule broken, subscription disabled); `lost` = its worker died before
 * recording it (the outcome is unknown; the receiver is not to blame, so the next attempt goes at once);
 * `gone` = the receiver answered 410 Gone (never retried; disables the subscription).
 */
export type AttemptOutcome = 'ok' | 'failed' | 'fatal' | 'lost' | 'gone';

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
