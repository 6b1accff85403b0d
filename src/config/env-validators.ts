import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeValidator } from 'envalid';
import { Keyring, parseKeyring } from './keyring';

/** The checks of the environment's values beyond envalid's own (config.ts reads the variables with them). */

/** A whole number of at least `min`, written as digits only (no sign, exponent or fraction). */
const intAtLeast = (min: number, what: string) =>
  makeValidator<number>((input) => {
    const value = Number(input);
    if (!/^\d+$/.test(String(input).trim()) || !Number.isSafeInteger(value) || value < min) {
      throw new Error(`must be a ${what} integer, got "${input}"`);
    }
    return value;
  });

export const positiveInt = intAtLeast(1, 'positive');
export const nonNegativeInt = intAtLeast(0, 'non-negative');

/** An empty value (`SECRETS_ENCRYPTION_KEY=` as in .env.example) counts as unset. */
export const keyring = makeValidator<Keyring>((input) => (input.trim() === '' ? [] : parseKeyring(input)));

export const postgresUrl = makeValidator<string>((input) => {
  if (!/^postgres(ql)?:\/\//.test(input)) throw new Error(`must be a postgres:// URL, got "${redactUrl(input)}"`);
  return input;
});

/** An empty value (`REDIS_PREFIX=` in a .env file) would silently mean "no prefix" or "the working directory". */
export const nonEmptyStr = makeValidator<string>((input) => {
  if (input.trim() === '') throw new Error('must not be empty');
  return input;
});

/** An ISO 8601 instant with its offset (`2027-04-07T00:00:00Z`): a date without a zone would depend on the host's. */
export const instant = makeValidator<Date>((input) => {
  const value = String(input).trim();
  const parsed = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(parsed.getTime()))
    throw new Error(`must be an ISO 8601 instant with its offset (2027-04-07T00:00:00Z), got "${value}"`);
  return parsed;
});

/** envalid's url() takes anything `new URL` parses, `localhost:3000` included (scheme "localhost:"). */
export const httpUrl = makeValidator<string>((input) => {
  let parsed: URL | undefined;
  try {
    parsed = new URL(input);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.hostname)
    throw new Error(`must be an http(s):// URL, got "${redactUrl(input)}"`);
  return input;
});

/**
 * Express's `trust proxy` in the forms that cannot be spoofed: empty or `false` (the socket's
 * peer is the client), a number of proxy hops, or a comma-separated list of proxy addresses,
 * CIDR ranges or Express's names (loopback, linklocal, uniquelocal). `true` is refused: it
 * believes any X-Forwarded-For, so every client could choose its own address.
 */
export const trustProxy = makeValidator<false | number | string[]>((input) => {
  const value = String(input).trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') throw new Error('must not be true (it believes any X-Forwarded-For); give the proxy hop count or addresses');
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!/^(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:]+(\/\d{1,3})?)$/.test(entry)) {
      throw new Error(`must be a hop count or a list of proxy addresses, got "${value}"`);
    }
  }
  return entries;
});

/** A URL for a message: its password replaced by ***. */
export function redactUrl(input: string): string {
  return input.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** The deployed version (GET /v1/health): package.json's, found from here up (src/, dist/ and bench builds differ in depth). */
export function readPackageVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, 'utf8')).version;
  }
  return '0.0.0';
}
