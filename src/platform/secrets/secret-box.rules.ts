import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Keyring } from '../../config/keyring';

/**
 * Secrets kept at rest (webhook signing secrets): AES-256-GCM, a fresh 12-byte IV per value, the
 * 16-byte tag, and the id of the key that sealed it stored in the value itself:
 * `v1.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>`. The context (the owning row's id) is authenticated
 * data, so a sealed value copied to another row does not open there. Keys come from
 * SECRETS_ENCRYPTION_KEY (src/config/keyring.ts): the first one seals, every one opens.
 */
const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Signing secrets stored before encryption: 32 random bytes, base64url (43 characters). */
const LEGACY_PLAINTEXT = /^[A-Za-z0-9_-]{43}$/;

export class SecretBoxError extends Error {}

/** Seals a secret with the keyring's first key, bound to `context`. `iv` is for tests. */
export function sealSecret(plaintext: string, keyring: Keyring, context: string, iv: Buffer = randomBytes(IV_BYTES)): string {
  const [current] = keyring;
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${FORMAT}.${current.id}.${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
}

/**
 * Opens a sealed secret with whichever key of the ring sealed it. A legacy plaintext secret (stored
 * before encryption, until it is sealed) is returned as it is. Throws a SecretBoxError when the key is
 * not in the ring, or the value was altered or belongs to another context.
 */
export function openSecret(stored: string, keyring: Keyring, context: string): string {
  if (LEGACY_PLAINTEXT.test(stored)) return stored;
  const [format, keyId, payload] = stored.split('.');
  if (format !== FORMAT || !keyId || !payload) throw new SecretBoxError('not a sealed secret');
  const entry = keyring.find((candidate) => candidate.id === keyId);
  if (!entry) throw new SecretBoxError(`sealed with key ${keyId}, which SECRETS_ENCRYPTION_KEY no longer lists`);
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', entry.key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError(`sealed secret does not open with key ${keyId} (altered, or sealed for another record)`);
  }
}

/** True when the value is not sealed with the keyring's first key (legacy plaintext, or an older key): reseal it. */
export function needsResealing(stored: string, keyring: Keyring): boolean {
  return !stored.startsWith(`${FORMAT}.${keyring[0].id}.`);
}
