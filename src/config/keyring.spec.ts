import { randomBytes } from 'node:crypto';
import { DEVELOPMENT_KEYRING, KEY_BYTES, parseKeyring, usesDevelopmentKey } from './keyring';

const keyA = randomBytes(KEY_BYTES);
const keyB = randomBytes(KEY_BYTES);

describe('parseKeyring', () => {
  it('reads id:base64key entries in order, standard or url-safe base64, spaces around commas ignored', () => {
    const ring = parseKeyring(`k2:${keyB.toString('base64')} , k1:${keyA.toString('base64url')}`);
    expect(ring.map((entry) => entry.id)).toEqual(['k2', 'k1']);
    expect(ring[0].key.equals(keyB)).toBe(true);
    expect(ring[1].key.equals(keyA)).toBe(true);
  });

  it.each([
    ['', 'at least one key'],
    [`:${keyA.toString('base64')}`, 'the id before'],
    [keyA.toString('base64'), 'the id before'],
    [`k.1:${keyA.toString('base64')}`, 'the id before'],
    [`k1:${randomBytes(16).toString('base64')}`, 'must be 32 bytes'],
    ['k1:not base64!', 'must be 32 bytes'],
    [`k1:${keyA.toString('base64')},k1:${keyB.toString('base64')}`, 'listed twice'],
  ])('refuses entry %# (%s) without quoting a key', (value, message) => {
    expect(() => parseKeyring(value)).toThrow(message);
    try {
      parseKeyring(value);
    } catch (error) {
      expect((error as Error).message).not.toContain(keyA.toString('base64'));
    }
  });
});

describe('usesDevelopmentKey', () => {
  it('spots the development key under any id', () => {
    expect(usesDevelopmentKey(DEVELOPMENT_KEYRING)).toBe(true);
    expect(usesDevelopmentKey(parseKeyring(`prod:${DEVELOPMENT_KEYRING[0].key.toString('base64')}`))).toBe(true);
    expect(usesDevelopmentKey(parseKeyring(`prod:${keyA.toString('base64')}`))).toBe(false);
  });
});
