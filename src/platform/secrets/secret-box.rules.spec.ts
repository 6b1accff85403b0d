import { randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyring } from '../../config/keyring';
import { needsResealing, openSecret, sealSecret, SecretBoxError } from './secret-box.rules';

const keyA = randomBytes(KEY_BYTES);
const keyB = randomBytes(KEY_BYTES);
const secret = 'm2Jz6Qv0p3c3Yk1o0rXo3n9mXh0B3Z0c2q0pWm5l1xE';

describe('sealSecret / openSecret', () => {
  const ring = parseKeyring(`k1:${keyA.toString('base64')}`);

  it('seals with the first key, its id stored in the value, and opens it again', () => {
    const sealed = sealSecret(secret, ring, 'sub_1');
    expect(sealed).toMatch(/^v1\.k1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret);
    expect(openSecret(sealed, ring, 'sub_1')).toBe(secret);
  });

  it('uses a fresh IV each time: the same secret never seals the same way twice', () => {
    expect(sealSecret(secret, ring, 'sub_1')).not.toBe(sealSecret(secret, ring, 'sub_1'));
  });

  it("is AES-256-GCM with the context as associated data (known answer, from Python cryptography's AESGCM)", () => {
    const fixed = parseKeyring(`k1:${Buffer.alloc(32, 1).toString('base64')}`);
    const expected = 'v1.k1.BwcHBwcHBwcHBwcH5ZaGyGBgpjAYgYNsQG5syWVqQqpZ';
    expect(sealSecret('hello', fixed, 'ctx', Buffer.alloc(12, 7))).toBe(expected);
    expect(openSecret(expected, fixed, 'ctx')).toBe('hello');
  });

  it('opens values sealed with any key of the ring, so a new first key can be rolled out', () => {
    const old = sealSecret(secret, ring, 'sub_1');
    const rotated = parseKeyring(`k2:${keyB.toString('base64')},k1:${keyA.toString('base64')}`);
    expect(openSecret(old, rotated, 'sub_1')).toBe(secret);
    expect(sealSecret(secret, rotated, 'sub_1')).toMatch(/^v1\.k2\./);
  });

  it('refuses a key the ring no longer lists, another context, and any altered byte', () => {
    const sealed = sealSecret(secret, ring, 'sub_1');
    const other = parseKeyring(`k2:${keyB.toString('base64')}`);
    expect(() => openSecret(sealed, other, 'sub_1')).toThrow('sealed with key k1, which SECRETS_ENCRYPTION_KEY no longer lists');
    expect(() => openSecret(sealed, ring, 'sub_2')).toThrow('does not open');
    const bytes = Buffer.from(sealed.split('.')[2], 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] ^= 1;
      expect(() => openSecret(`v1.k1.${altered.toString('base64url')}`, ring, 'sub_1')).toThrow(SecretBoxError);
    }
    expect(() => openSecret('v1.k1.AAAA', ring, 'sub_1')).toThrow('truncated');
    expect(() => openSecret('v2.k1.AAAA', ring, 'sub_1')).toThrow('not a sealed secret');
  });

  it('reads a legacy plaintext secret (stored before encryption) as it is', () => {
    expect(openSecret(secret, ring, 'sub_1')).toBe(secret);
    expect(() => openSecret('short', ring, 'sub_1')).toThrow('not a sealed secret');
  });
});

describe('needsResealing', () => {
  it('is true for legacy plaintext and values of another key, false for the current key', () => {
    const k1 = parseKeyring(`k1:${keyA.toString('base64')}`);
    const k2First = parseKeyring(`k2:${keyB.toString('base64')},k1:${keyA.toString('base64')}`);
    const sealed = sealSecret(secret, k1, 'sub_1');
    expect(needsResealing(sealed, k1)).toBe(false);
    expect(needsResealing(sealed, k2First)).toBe(true);
    expect(needsResealing(secret, k1)).toBe(true);
  });
});
