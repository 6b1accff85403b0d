import { createHash, randomBytes } from 'node:crypto';
import { Plan, SubscriptionStatus } from './account.entity';
import { AUTH_IDS } from './auth.ids';

const KEY_PREFIX = 'popk_';
/** A test key's prefix: what tells a reader (and a secret scanner) it is harmless. The flag the guard reads is the key row's. */
export const TEST_KEY_PREFIX = 'popk_test_';

/** A new secret key: a recognisable prefix (for secret scanners) and 256 random bits. */
export function generateApiKey(options: { test?: boolean } = {}): string {
  return (options.test ? TEST_KEY_PREFIX : KEY_PREFIX) + randomBytes(32).toString('base64url');
}

/** Whether the account is a sandbox (its id says so: sandboxes are minted as `sbx_…`). */
export function isSandboxAccount(accountId: string): boolean {
  return accountId.startsWith(`${AUTH_IDS.sandbox.prefix}_`);
}

/** The header on every response to a test key and every webhook delivery from a sandbox. */
export const TEST_MODE_HEADER = 'X-Test-Mode';

/** Keys carry 256 bits of entropy, so a fast hash is enough and keeps lookups cheap. */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Cheap shape check, so garbage never reaches the database. */
export function looksLikeApiKey(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 16 && value.length <= 200 && /^[\x21-\x7e]+$/.test(value);
}

/** The key of an `Authorization: Bearer <key>` header (scheme case-insensitive, RFC 9110), else undefined. */
export function bearerKeyOf(authorization: unknown): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

const PLANS_WITH_API: ReadonlySet<Plan> = new Set(['pro', 'business']);

export function hasApiAccess(plan: Plan, status: SubscriptionStatus): boolean {
  return status === 'active' && PLANS_WITH_API.has(plan);
}

/** last_used_at is informational; writing it at most once a minute keeps auth read-only on the hot path. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export function shouldTouchLastUsed(lastUsedAt: Date | null, now: Date): boolean {
  return !lastUsedAt || now.getTime() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}
