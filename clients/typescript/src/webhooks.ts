import { createHmac, createPublicKey, KeyObject, timingSafeEqual, verify } from 'node:crypto';
import type { WebhookPayload } from './types';

/** Spec 6.2 rule 4: deliveries whose webhook-timestamp is further than this from the receiver's clock are refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests). */
  now?: Date;
}

/**
 * Verifies a delivery and returns its parsed body, or throws a WebhookVerificationError.
 * - `secretOrPublicKey`: the subscription's signingSecret (checks the spec's `v1`: HMAC-SHA256 keyed by
 *   the secret's own bytes as returned; a Standard Webhooks `whsec_…` secret is base64-decoded as that
 *   convention says), or its `whpk_…` publicKey (checks `v1a`: ed25519, the extension). Give several
 *   (an array) during a rotation: any one matching is enough.
 * - `rawBody`: the bytes exactly as received, never a re-serialised JSON.
 * The timestamp must be within 5 minutes of the clock; HMACs are compared in constant time.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secretOrPublicKey: string | readonly string[],
  options: VerifyOptions = {},
): WebhookPayload {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const presented = signature.split(' ').map((entry) => {
    const comma = entry.indexOf(',');
    return { scheme: entry.slice(0, comma), value: Buffer.from(entry.slice(comma + 1), 'base64') };
  });
  const keys = typeof secretOrPublicKey === 'string' ? [secretOrPublicKey] : secretOrPublicKey;
  if (keys.length === 0) throw new WebhookVerificationError('no secret or public key given');
  const matches = keys.some((key) =>
    key.startsWith(PUBLIC_KEY_PREFIX) ? matchesV1a(content, presented, publicKeyOf(key)) : matchesV1(content, presented, hmacKeyOf(key)),
  );
  if (!matches) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(body.toString('utf8')) as WebhookPayload;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}

const PUBLIC_KEY_PREFIX = 'whpk_';
const STANDARD_SECRET_PREFIX = 'whsec_';

type Presented = Array<{ scheme: string; value: Buffer }>;

function matchesV1(content: Buffer, presented: Presented, key: Buffer): boolean {
  const expected = createHmac('sha256', key).update(content).digest();
  // Every v1 value is compared (no early exit on the first match), each in constant time.
  let found = false;
  for (const { scheme, value } of presented) {
    if (scheme === 'v1' && value.length === expected.length && timingSafeEqual(value, expected)) found = true;
  }
  return found;
}

function matchesV1a(content: Buffer, presented: Presented, key: KeyObject): boolean {
  return presented.some(({ scheme, value }) => scheme === 'v1a' && value.length === 64 && verify(null, content, key, value));
}

/** The HMAC key: the spec's secret is used as its own bytes; a Standard Webhooks whsec_ secret is base64 of the key. */
function hmacKeyOf(secret: string): Buffer {
  return secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

function publicKeyOf(publicKey: string): KeyObject {
  const raw = Buffer.from(publicKey.slice(PUBLIC_KEY_PREFIX.length), 'base64');
  if (raw.length !== 32) throw new WebhookVerificationError('a whpk_ public key is base64 of 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}
