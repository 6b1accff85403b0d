import { createHmac } from 'node:crypto';

export interface SignInput {
  /** The webhook-id header: the delivery id. */
  deliveryId: string;
  /** The webhook-timestamp header: unix seconds. */
  timestamp: number;
  /** The exact body bytes sent (the JSON string). */
  body: string;
  /** Secrets to sign with, newest first (during a rotation overlap: current, then previous). */
  secrets: readonly string[];
}

/**
 * The webhook-signature header (spec 6.2, Standard Webhooks): one `v1,<base64 HMAC-SHA256>` per
 * secret, space-separated, in the order given. The HMAC key is the secret string's UTF-8 bytes as
 * the API returned it; it is NOT base64-decoded (libraries that decode must be given base64(secret)).
 */
export function signPayload({ deliveryId, timestamp, body, secrets }: SignInput): string {
  if (secrets.length === 0) throw new Error('signPayload needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error(`timestamp must be unix seconds, got ${timestamp}`);
  const content = `${deliveryId}.${timestamp}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(content, 'utf8').digest('base64')}`)
    .join(' ');
}

/** Secrets that sign a delivery now: the current one, plus the previous one while its overlap lasts. */
export function signingSecrets(
  subscription: { signingSecret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const { signingSecret, previousSecret, previousSecretExpiresAt } = subscription;
  const previousValid = previousSecret !== null && previousSecretExpiresAt !== null && previousSecretExpiresAt.getTime() > now.getTime();
  return previousValid ? [signingSecret, previousSecret] : [signingSecret];
}
