import { randomBytes } from 'node:crypto';

/** Pure rules of webhook subscriptions (spec 2.7, 4.8, 8). */
export const SUBSCRIPTION_LIMITS = {
  eventFiltersMin: 1,
  eventFiltersMax: 50,
  maxRetriesMin: 0,
  maxRetriesMax: 10,
  maxRetriesDefault: 5,
  /** Pacing per endpoint (an extension): attempts started per second at most. */
  rateLimitPerSecondMin: 1,
  rateLimitPerSecondMax: 1000,
} as const;

/** How long the replaced secret keeps signing after a rotation (spec 4.8 rule 8). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const SIGNING_SECRET_BYTES = 32;

/** 32 random bytes as base64url without padding: 43 ASCII characters, used as HMAC key bytes as-is (spec 6.2). */
export function newSigningSecret(): string {
  return randomBytes(SIGNING_SECRET_BYTES).toString('base64url');
}

/**
 * The signing secret as Standard Webhooks libraries take it (`new Webhook(secret)` in standardwebhooks,
 * svix…): they strip `whsec_` and base64-decode the rest into the HMAC key, while the spec's key is the
 * secret string's own bytes; so `whsec_` + base64 of those bytes makes the same key.
 */
export function standardWebhooksSecret(signingSecret: string): string {
  return `whsec_${Buffer.from(signingSecret, 'utf8').toString('base64')}`;
}

/**
 * The signature schemes a subscription may sign with (extension): the spec's v1 (HMAC) always, v1a
 * (Standard Webhooks' ed25519) as an option. v1 cannot be turned off: the spec promises it.
 */
export const SIGNATURE_SCHEMES = ['v1', 'v1a'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
export const DEFAULT_SIGNATURE_SCHEMES: SignatureScheme[] = ['v1'];

/** The schemes as stored: v1a is on exactly while the subscription has a signing key. */
export function signatureSchemesOf(row: { signingKey: string | null }): SignatureScheme[] {
  return row.signingKey === null ? ['v1'] : ['v1', 'v1a'];
}

/** Whether the requested schemes turn v1a on. */
export function wantsV1a(schemes: readonly string[]): boolean {
  return schemes.includes('v1a');
}

/** When the secret replaced at `now` stops signing. */
export function previousSecretExpiry(now: Date): Date {
  return new Date(now.getTime() + ROTATION_OVERLAP_MS);
}

/** The subscription's disabledReason when the delivery engine disabled it after repeated failures (spec 3.4). */
export const AUTO_DISABLED_REASON = 'auto_disabled_after_repeated_delivery_failures';
/** disabledReason when the receiver answered 410 Gone (an extension of the spec, docs/webhooks.md). */
export const GONE_DISABLED_REASON = 'gone';

/**
 * Events the delivery engine publishes about a subscription (extensions); their clientRequestId is that
 * subscription's id, and they never go to the subscription they are about (dispatch, replays).
 */
export const OPERATIONAL_EVENTS: ReadonlySet<string> = new Set([
  'webhook.disabled',
  'webhook.recovered',
  'webhook.clientCertificateExpired',
]);

/**
 * The stored form of a webhook url, which is also the form compared for "one subscription per URL":
 * the WHATWG serialisation (scheme and host lower-cased, default port dropped, IDN host in punycode,
 * path percent-encoding normalised) without the fragment, which is never sent to the receiver.
 * Path, query and their case are kept: receivers may route on them.
 */
export function normaliseWebhookUrl(url: URL): string {
  const copy = new URL(url.toString());
  copy.hash = '';
  return copy.toString();
}

/** Filters in the order given, each once: a repeated filter would select nothing more. */
export function distinctEventFilters(filters: readonly string[]): string[] {
  return [...new Set(filters)];
}

/** The log's text for a pending delivery stopped because its subscription is disabled. */
export const SUBSCRIPTION_DISABLED_MESSAGE = 'subscription disabled';
