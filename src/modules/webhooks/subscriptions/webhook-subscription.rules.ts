import { randomBytes } from 'node:crypto';

/** Pure rules of webhook subscriptions (spec 2.7, 4.8, 8). */
export const SUBSCRIPTION_LIMITS = {
  urlMax: 2048,
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

/** When the secret replaced at `now` stops signing. */
export function previousSecretExpiry(now: Date): Date {
  return new Date(now.getTime() + ROTATION_OVERLAP_MS);
}

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
