import { createHmac, createPrivateKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';

export interface SignInput {
  /** The webhook-id header: the delivery id. */
  deliveryId: string;
  /** The webhook-timestamp header: unix seconds. */
  timestamp: number;
  /** The exact body bytes sent (the JSON string). */
  body: string;
  /** Secrets to sign with, newest first (during a rotation overlap: current, then previous). */
  secrets: readonly string[];
  /** Ed25519 private keys for `v1a` (extension), newest first; none when the subscription has v1a off. */
  signingKeys?: readonly KeyObject[];
}

/**
 * The webhook-signature header (spec 6.2, Standard Webhooks): one `v1,<base64 HMAC-SHA256>` per
 * secret, space-separated, in the order given. The HMAC key is the secret string's UTF-8 bytes as
 * the API returned it; it is NOT base64-decoded (libraries that decode must be given base64(secret)).
 * With v1a on (extension), one `v1a,<base64 ed25519 signature>` per signing key follows, over the same
 * `id.timestamp.body` content.
 */
export function signPayload({ deliveryId, timestamp, body, secrets, signingKeys = [] }: SignInput): string {
  if (secrets.length === 0) throw new Error('signPayload needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error(`timestamp must be unix seconds, got ${timestamp}`);
  const content = `${deliveryId}.${timestamp}.${body}`;
  const v1 = secrets.map((secret) => `v1,${createHmac('sha256', secret).update(content, 'utf8').digest('base64')}`);
  const v1a = signingKeys.map((key) => `v1a,${sign(null, Buffer.from(content, 'utf8'), key).toString('base64')}`);
  return [...v1, ...v1a].join(' ');
}

/** Secrets that sign a delivery now: the current one, plus the previous one while its overlap lasts. */
export function signingSecrets(
  subscription: { signingSecret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const { signingSecret, previousSecret, previousSecretExpiresAt } = subscription;
  return [signingSecret, ...(withinOverlap(previousSecret, previousSecretExpiresAt, now) ? [previousSecret!] : [])];
}

/**
 * Sealed v1a keys that sign a delivery now: none with v1a off; the current one, plus the previous one
 * while the rotation's overlap lasts (the same window as the HMAC secret's).
 */
export function signingKeysOf(
  subscription: { signingKey: string | null; previousSigningKey: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const { signingKey, previousSigningKey, previousSecretExpiresAt } = subscription;
  if (signingKey === null) return [];
  return [signingKey, ...(withinOverlap(previousSigningKey, previousSecretExpiresAt, now) ? [previousSigningKey!] : [])];
}

function withinOverlap(previous: string | null, expiresAt: Date | null, now: Date): boolean {
  return previous !== null && expiresAt !== null && expiresAt.getTime() > now.getTime();
}

/** Prefix of a v1a public key as the API shows it (Standard Webhooks' convention). */
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** A new v1a key pair: the private key as base64 PKCS#8 DER (sealed at rest), the public key as `whpk_` + base64 of its 32 raw bytes. */
export function newSigningKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'), publicKey: publicKeyOf(publicKey) };
}

/** The private key's KeyObject, from the stored (opened) base64 PKCS#8 DER form. */
export function signingKeyFrom(privateKey: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
}

/** `whpk_` + base64 of the raw 32-byte Ed25519 public key (the JWK `x`, base64url there). */
export function publicKeyOf(key: KeyObject): string {
  const { x } = key.export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(x!, 'base64url').toString('base64')}`;
}

/** The associated data a subscription's v1a private key is sealed with: its id, marked, so a sealed HMAC secret never opens as a key or back. */
export function signingKeyContext(subscriptionId: string): string {
  return `${subscriptionId}:v1a`;
}
