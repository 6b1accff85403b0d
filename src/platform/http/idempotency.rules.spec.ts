import { canonicalJson, isValidIdempotencyKey, requestFingerprint } from './idempotency.rules';

describe('idempotency rules', () => {
  it('accepts 1-255 visible ASCII characters', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey('k'.repeat(255))).toBe(true);
    expect(isValidIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(true);
  });

  it.each(['', 'k'.repeat(256), 'has space', 'tab\t', 'é'])('rejects key %p', (key) => {
    expect(isValidIdempotencyKey(key)).toBe(false);
  });

  it('fingerprints bodies independently of key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestFingerprint('POST', '/v1/properties', { a: 1, b: 2 })).toBe(requestFingerprint('post', '/v1/properties', { b: 2, a: 1 }));
  });

  it('tells apart different bodies, paths and methods', () => {
    const base = requestFingerprint('POST', '/v1/properties', { a: 1 });
    expect(requestFingerprint('POST', '/v1/properties', { a: 2 })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/bookings', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/properties', { a: 1 })).not.toBe(base);
  });
});
