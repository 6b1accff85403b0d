import { MtlsView, mtlsView, StoredMtls } from './receiver-mtls.rules';

/**
 * Receiver authentication (issue 42, an extension): what a subscription may ask us to present to a
 * receiver that sits behind a gateway (custom headers, an OAuth2 client-credentials token), how it is
 * stored (the secret parts sealed with SECRETS_ENCRYPTION_KEY, like signing secrets) and how reads show
 * it (never a secret). Pure rules: no I/O.
 */

/** Custom headers per subscription at most, and their bounds. */
export const RECEIVER_HEADERS_MAX = 10;
export const RECEIVER_HEADER_NAME_MAX = 64;
export const RECEIVER_HEADER_VALUE_MAX = 1024;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** Printable ASCII (space to tilde): anything else could split or smuggle a header. */
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/**
 * Names we set ourselves on every attempt (or that undici refuses because they break HTTP framing),
 * lower case; every `webhook-*` name is ours too (RESERVED_PREFIX).
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'user-agent',
  'traceparent',
  'x-test-mode',
  // Hop-by-hop or framing headers undici refuses or that a proxy would act on.
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);
const RESERVED_PREFIX = 'webhook-';

/** What every read shows instead of a header's value. */
export const REDACTED = '[redacted]';

/**
 * Why a `headers` object is refused (naming the header), or null when it is valid: at most 10, names
 * `^[A-Za-z0-9][A-Za-z0-9_-]*$` of 64 characters at most, unique case-insensitively and none of ours,
 * values printable ASCII of 1,024 characters at most.
 */
export function receiverHeadersIssue(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object of header names to values';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > RECEIVER_HEADERS_MAX) return `must have at most ${RECEIVER_HEADERS_MAX} headers (got ${entries.length})`;
  const seen = new Set<string>();
  for (const [name, headerValue] of entries) {
    const shown = JSON.stringify(name.slice(0, RECEIVER_HEADER_NAME_MAX + 1));
    if (name.length > RECEIVER_HEADER_NAME_MAX) return `header ${shown}… is longer than ${RECEIVER_HEADER_NAME_MAX} characters`;
    if (!HEADER_NAME.test(name)) return `header ${shown} is not a valid name: letters, digits, - and _, starting with a letter or digit`;
    const lower = name.toLowerCase();
    if (RESERVED_HEADER_NAMES.has(lower) || lower.startsWith(RESERVED_PREFIX))
      return `header ${shown} is set by the platform and cannot be sent`;
    if (seen.has(lower)) return `header ${shown} is given twice (names are case-insensitive)`;
    seen.add(lower);
    if (typeof headerValue !== 'string') return `header ${shown} must have a string value`;
    if (headerValue.length > RECEIVER_HEADER_VALUE_MAX)
      return `header ${shown} has a value longer than ${RECEIVER_HEADER_VALUE_MAX} characters`;
    if (!HEADER_VALUE.test(headerValue)) return `header ${shown} has a value that is not printable ASCII`;
  }
  return null;
}

/** OAuth2 client authentication at the token endpoint (RFC 6749 2.3.1): HTTP Basic (default) or form fields. */
export const OAUTH2_AUTH_METHODS = ['clientSecretBasic', 'clientSecretPost'] as const;
export type OAuth2AuthMethod = (typeof OAUTH2_AUTH_METHODS)[number];

/** The OAuth2 settings a read shows: everything but the client secret. */
export interface OAuth2Settings {
  tokenUrl: string;
  clientId: string;
  scope?: string;
  audience?: string;
  authMethod: OAuth2AuthMethod;
}

/**
 * The `receiver_auth` column (jsonb): each option present only while set. Header values and the client
 * secret are sealed (SecretBox, context receiverAuthContext) and only the worker opens them; header names
 * are kept open so reads can show them without opening anything.
 */
export interface StoredReceiverAuth {
  headers?: { names: string[]; sealed: string };
  oauth2?: OAuth2Settings & { clientSecret: string };
  mtls?: StoredMtls;
}

/** The SecretBox context of a subscription's receiver credentials: they open for that subscription and that use only. */
export function receiverAuthContext(subscriptionId: string, part: 'headers' | 'oauth2' | 'token' | 'mtls'): string {
  return `${subscriptionId}:auth:${part}`;
}

/** How reads show receiver authentication (absent options are left out). */
export interface ReceiverAuthView {
  headers?: Record<string, string>;
  oauth2?: OAuth2Settings;
  mtls?: MtlsView;
}

/** The read view: header names with `[redacted]` values, OAuth2 without its secret. */
export function receiverAuthView(stored: StoredReceiverAuth | null | undefined): ReceiverAuthView {
  const view: ReceiverAuthView = {};
  if (stored?.headers) view.headers = Object.fromEntries(stored.headers.names.map((name) => [name, REDACTED]));
  if (stored?.oauth2) {
    const { clientSecret: _secret, ...shown } = stored.oauth2;
    view.oauth2 = shown;
  }
  if (stored?.mtls) view.mtls = mtlsView(stored.mtls);
  return view;
}

/** The column's value after a change: options set to null are dropped; an empty object is stored as null. */
export function withReceiverAuth(
  current: StoredReceiverAuth | null | undefined,
  changes: Partial<Record<keyof StoredReceiverAuth, unknown>>,
): StoredReceiverAuth | null {
  const next: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return Object.keys(next).length === 0 ? null : (next as StoredReceiverAuth);
}

/** Whether the custom headers name Authorization, which an OAuth2 token sets: the two cannot go together. */
export function headersNameAuthorization(names: readonly string[]): boolean {
  return names.some((name) => name.toLowerCase() === 'authorization');
}

/**
 * How long a token is reused (ms): `expires_in` minus the smaller of 10% and 60 s; an hour when the
 * endpoint gives no (usable) `expires_in`.
 */
export function tokenReuseMs(expiresIn: unknown): number {
  const seconds =
    typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' && /^\d+$/.test(expiresIn) ? Number(expiresIn) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return 60 * 60 * 1000;
  return Math.max(0, Math.round((seconds - Math.min(seconds * 0.1, 60)) * 1000));
}

/**
 * The column with each sealed part passed through `reseal` (the key-rotation upkeep seals them again with
 * the current key), each with its own context; undefined when nothing changed.
 */
export function resealedReceiverAuth(
  stored: StoredReceiverAuth,
  subscriptionId: string,
  reseal: (sealed: string, context: string) => string,
): StoredReceiverAuth | undefined {
  const next: StoredReceiverAuth = { ...stored };
  if (stored.headers)
    next.headers = { ...stored.headers, sealed: reseal(stored.headers.sealed, receiverAuthContext(subscriptionId, 'headers')) };
  if (stored.oauth2)
    next.oauth2 = { ...stored.oauth2, clientSecret: reseal(stored.oauth2.clientSecret, receiverAuthContext(subscriptionId, 'oauth2')) };
  if (stored.mtls) next.mtls = { ...stored.mtls, clientKey: reseal(stored.mtls.clientKey, receiverAuthContext(subscriptionId, 'mtls')) };
  const changed =
    next.headers?.sealed !== stored.headers?.sealed ||
    next.oauth2?.clientSecret !== stored.oauth2?.clientSecret ||
    next.mtls?.clientKey !== stored.mtls?.clientKey;
  return changed ? next : undefined;
}
