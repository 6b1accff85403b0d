import { bearerKeyOf, generateApiKey, hasApiAccess, hashApiKey, looksLikeApiKey, shouldTouchLastUsed } from './auth.rules';

describe('auth rules', () => {
  it('generates distinct, prefixed, url-safe keys', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^popk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(looksLikeApiKey(a)).toBe(true);
  });

  it('hashes keys deterministically to 32 bytes', () => {
    expect(hashApiKey('popk_x').equals(hashApiKey('popk_x'))).toBe(true);
    expect(hashApiKey('popk_x').equals(hashApiKey('popk_y'))).toBe(false);
    expect(hashApiKey('popk_x')).toHaveLength(32);
  });

  it('rejects values that cannot be keys', () => {
    expect(looksLikeApiKey(undefined)).toBe(false);
    expect(looksLikeApiKey('short')).toBe(false);
    expect(looksLikeApiKey('popk_' + 'a'.repeat(300))).toBe(false);
    expect(looksLikeApiKey('popk_has space_aaaaaaaaaaaa')).toBe(false);
  });

  it.each([
    ['pro', 'active', true],
    ['business', 'active', true],
    ['basic', 'active', false],
    ['pro', 'inactive', false],
    ['business', 'inactive', false],
  ] as const)('plan %s with subscription %s has API access: %s', (plan, status, expected) => {
    expect(hasApiAccess(plan, status)).toBe(expected);
  });

  it('touches last-used at most once a minute', () => {
    const now = new Date('2026-01-01T00:01:00Z');
    expect(shouldTouchLastUsed(null, now)).toBe(true);
    expect(shouldTouchLastUsed(new Date('2026-01-01T00:00:30Z'), now)).toBe(false);
    expect(shouldTouchLastUsed(new Date('2026-01-01T00:00:00Z'), now)).toBe(true);
  });

  it('reads the key of an Authorization: Bearer header, and nothing else', () => {
    expect(bearerKeyOf('Bearer popk_abc')).toBe('popk_abc');
    expect(bearerKeyOf('bearer  popk_abc ')).toBe('popk_abc');
    expect(bearerKeyOf('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerKeyOf('Bearer')).toBeUndefined();
    expect(bearerKeyOf('Bearer a b')).toBeUndefined();
    expect(bearerKeyOf(undefined)).toBeUndefined();
    expect(bearerKeyOf(['Bearer popk_abc'])).toBeUndefined();
  });
});
