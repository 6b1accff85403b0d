import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The console's constants and pure rules (docs/console.md): links, sessions, cookies, CSRF. */
export const CONSOLE_LIMITS = {
  /** A sign-in link's default and longest life. */
  linkMinutesDefault: 15,
  linkMinutesMax: 60,
  /** A session ends after this long without a request (idle expiry) ... */
  idleMinutes: 30,
  /** ... and in any case this long after sign-in. */
  absoluteHours: 12,
  keyLabelMax: 100,
  /** How long a shown-once value (a new key, a signing secret) waits for its page. */
  noteMinutes: 10,
  /** How long a repeated post of a form waits for its first post's result before saying it is still running. */
  repeatWaitMs: 5_000,
} as const;

export const SESSION_COOKIE = 'pop_console';
/** The sign-in page's nonce (double submit): a link can only be exchanged from a page this browser opened. */
export const SIGNIN_COOKIE = 'pop_console_signin';
export const CONSOLE_PATH = '/console';
/**
 * Test mode in the console (docs/test-mode.md): the cookie holds the id of the session it was switched on in,
 * so it lasts that session only (a later sign-in, to this account or another, starts live).
 */
export const MODE_COOKIE = 'pop_console_mode';

/** Whether the request's session is in test mode (its mode cookie names it). */
export function inTestMode(cookieHeader: string | undefined, sessionId: string): boolean {
  return readCookie(cookieHeader, MODE_COOKIE) === sessionId;
}

const LINK_PREFIX = 'popcl_';

/** A token: 256 random bits, base64url. Links carry a recognisable prefix (secret scanners). */
export function newToken(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function newLinkToken(): string {
  return newToken(LINK_PREFIX);
}

/**
 * A form's one-post token (and a shown-once note's id): 128 random bits, base64url. Not a secret: a post
 * also carries the session's CSRF token; this one only makes a repeated post of the same form do nothing.
 */
export function newFormToken(): string {
  return randomBytes(16).toString('base64url');
}

export function isFormToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{22}$/.test(value);
}

/** Tokens carry 256 bits, so SHA-256 is enough: only hashes are stored. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A value that could be a link token: anything else is refused without a query. */
export function looksLikeLinkToken(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(LINK_PREFIX) && /^[A-Za-z0-9_-]{49}$/.test(value);
}

/** Constant-time comparison of two secrets of any length. */
export function sameSecret(a: unknown, b: string): boolean {
  if (typeof a !== 'string') return false;
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}

/** The link's life in minutes: default 15, whole minutes 1..60. */
export function linkMinutes(value: number | undefined): number {
  const minutes = value ?? CONSOLE_LIMITS.linkMinutesDefault;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > CONSOLE_LIMITS.linkMinutesMax) {
    throw new RangeError(`minutes must be a whole number from 1 to ${CONSOLE_LIMITS.linkMinutesMax}`);
  }
  return minutes;
}

export function signInUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${CONSOLE_PATH}/signin?token=${token}`;
}

/**
 * A console cookie: HttpOnly, SameSite=Strict, scoped to /console (never sent to /v1), Secure whenever the
 * public address is https. `maxAgeSeconds` 0 deletes it.
 */
export function consoleCookie(name: string, value: string, options: { secure: boolean; maxAgeSeconds?: number }): string {
  const parts = [`${name}=${value}`, `Path=${CONSOLE_PATH}`, 'HttpOnly', 'SameSite=Strict'];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}

/** Cookies are Secure whenever the console's public address is https. */
export function securePublicUrl(config: { publicBaseUrl: string }): boolean {
  return config.publicBaseUrl.startsWith('https:');
}

/** One cookie's value from a Cookie header (no dependency for this one read). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Why a link cannot start a session, from its stored row (null: it can). */
export function linkRefusal(link: { expiresAt: Date; usedAt: Date | null } | undefined, now: Date): 'invalid' | 'used' | 'expired' | null {
  if (!link) return 'invalid';
  if (link.usedAt) return 'used';
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return null;
}

/** Event filters as typed in a form: separated by commas, spaces or new lines. */
export function parseFilterList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
