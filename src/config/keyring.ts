import { createHash } from 'node:crypto';

/**
 * SECRETS_ENCRYPTION_KEY: the keys that seal secrets at rest (src/platform/secrets), as
 * `id:base64key[,id:base64key…]`. The first seals new values; every one listed opens the values it
 * sealed, so a key is rotated by putting a new one first and dropping the old one once nothing is
 * sealed with it any more (docs/webhooks.md, "Signing secrets at rest").
 */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Keys by preference: the first seals new values; all of them open. */
export type Keyring = readonly SecretKey[];

export const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The key outside production: fixed, so development and test processes read each other's rows.
 * Production refuses it.
 */
export const DEVELOPMENT_KEYRING: Keyring = [
  { id: 'dev', key: createHash('sha256').update('property-ops development secrets key').digest() },
];

/** Parses `id:base64key[,id:base64key…]`; throws an Error naming what is wrong (never the key). */
export function parseKeyring(value: string): Keyring {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('must list at least one key as id:base64key');
  const keyring = entries.map((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!KEY_ID.test(id)) throw new Error(`key ${i + 1}: the id before ':' must be 1-32 letters, digits, '-' or '_'`);
    const encoded = entry.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) || key.length !== KEY_BYTES) {
      throw new Error(`key ${id}: must be ${KEY_BYTES} bytes in base64 (e.g. openssl rand -base64 32)`);
    }
    return { id, key };
  });
  const ids = keyring.map((entry) => entry.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new Error(`key id ${repeated} is listed twice`);
  return keyring;
}

/** True when any key of the ring is the development key. */
export function usesDevelopmentKey(keyring: Keyring): boolean {
  return keyring.some((entry) => entry.key.equals(DEVELOPMENT_KEYRING[0].key));
}
