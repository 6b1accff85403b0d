import { SUBSCRIPTION_DISABLED_MESSAGE } from '../../subscriptions/webhook-subscription.rules';
import { errorChain } from '../../../../platform/errors/error-chain';
import type { AttemptErrorClass, AttemptTimings } from '../../webhook-delivery.entity';

/**
 * Pure pieces of a delivery attempt's outcome: the report of how it ended (the capped response snippet
 * kept in the delivery log, the text of a failed attempt), shared by the poster that makes it and the
 * rules that settle it. What an attempt sends (envelope, headers) is ../../webhook-envelope.rules.ts.
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

/** The attempt's result as the metrics and logs name it. */
export function attemptResult(report: AttemptReport): string {
  if (report.outcome === 'ok') return 'success';
  if (report.outcome === 'lost') return 'lost';
  if (report.errorClass === 'clientCertificateExpired') return 'client_certificate_expired';
  if (report.errorClass === 'tokenRequestFailed') return 'token_request_failed';
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
