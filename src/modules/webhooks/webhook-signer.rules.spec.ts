import { createHmac, createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newSigningKeyPair, publicKeyOf, signingKeyFrom, signingKeysOf, signingSecrets, signPayload } from './webhook-signer.rules';

// Vectors computed outside this code base with:
//   printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
const ID = 'whd_01JABCDEFGHJKMNPQRSTVWXYZ0';
const TS = 1763700000;
const BODY = '{"eventName":"property.create","note":"café €"}';
const NEW_SECRET = 'q3Jd0X5yVt8Rr2sYw9KpLmNoPqRsTuVwXyZaBcDeF-_';
const OLD_SECRET = 'old-secret_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const NEW_SIG = 'v1,at/+6x9uQRk8b2YNNLYDSrqLvgP3TgjQD34FjtIRbnI=';
const OLD_SIG = 'v1,DqclQs7v4XSL4FleXcsRZboYrnVZHMW5UvvU/cH8HmQ=';

describe('signPayload', () => {
  it('matches the fixed vector (key = the secret string bytes, message = id.timestamp.body)', () => {
    expect(signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [NEW_SECRET] })).toBe(NEW_SIG);
  });

  it('matches an HMAC computed by hand with node:crypto', () => {
    const byHand = createHmac('sha256', NEW_SECRET).update(`${ID}.${TS}.${BODY}`).digest('base64');
    expect(signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [NEW_SECRET] })).toBe(`v1,${byHand}`);
  });

  it('lists one value per secret, space-separated, in the given order (new first)', () => {
    expect(signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [NEW_SECRET, OLD_SECRET] })).toBe(`${NEW_SIG} ${OLD_SIG}`);
  });

  it('agrees with the standardwebhooks library given base64(secret)', () => {
    for (const secret of [NEW_SECRET, OLD_SECRET]) {
      const library = new Webhook(Buffer.from(secret).toString('base64'));
      expect(signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [secret] })).toBe(
        library.sign(ID, new Date(TS * 1000), BODY),
      );
    }
  });

  it('verifies with standardwebhooks for a current timestamp, with either secret of a rotation', () => {
    const now = Math.floor(Date.now() / 1000);
    const signature = signPayload({ deliveryId: ID, timestamp: now, body: BODY, secrets: [NEW_SECRET, OLD_SECRET] });
    const headers = { 'webhook-id': ID, 'webhook-timestamp': String(now), 'webhook-signature': signature };
    expect(new Webhook(Buffer.from(NEW_SECRET).toString('base64')).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(Buffer.from(OLD_SECRET).toString('base64')).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(Buffer.from('another-secret').toString('base64')).verify(BODY, headers)).toThrow('No matching signature');
  });

  it('changes when any signed part changes', () => {
    const base = { deliveryId: ID, timestamp: TS, body: BODY, secrets: [NEW_SECRET] };
    expect(signPayload({ ...base, deliveryId: `${ID}1` })).not.toBe(NEW_SIG);
    expect(signPayload({ ...base, timestamp: TS + 1 })).not.toBe(NEW_SIG);
    expect(signPayload({ ...base, body: `${BODY} ` })).not.toBe(NEW_SIG);
    // Base64-decoding the secret (the classic mistake) gives a different key.
    const decodedKey = createHmac('sha256', Buffer.from(NEW_SECRET, 'base64url')).update(`${ID}.${TS}.${BODY}`).digest('base64');
    expect(NEW_SIG).not.toBe(`v1,${decodedKey}`);
  });

  it('refuses no secrets and non-integer timestamps', () => {
    expect(() => signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [] })).toThrow();
    expect(() => signPayload({ deliveryId: ID, timestamp: 1.5, body: BODY, secrets: [NEW_SECRET] })).toThrow();
  });
});

describe('signingSecrets', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('signs with the current secret only when there is no previous one', () => {
    expect(signingSecrets({ signingSecret: 'a', previousSecret: null, previousSecretExpiresAt: null }, now)).toEqual(['a']);
  });
  it('adds the previous secret while its overlap lasts, new first', () => {
    const expires = new Date(now.getTime() + 1);
    expect(signingSecrets({ signingSecret: 'a', previousSecret: 'b', previousSecretExpiresAt: expires }, now)).toEqual(['a', 'b']);
  });
  it('drops the previous secret once the overlap ended (at the expiry instant included)', () => {
    expect(signingSecrets({ signingSecret: 'a', previousSecret: 'b', previousSecretExpiresAt: now }, now)).toEqual(['a']);
    expect(signingSecrets({ signingSecret: 'a', previousSecret: 'b', previousSecretExpiresAt: null }, now)).toEqual(['a']);
  });
});

// RFC 8032 section 7.1, test 1: the secret key 9d61b1…7f60 as PKCS#8 DER (base64), its public key, and the
// signature of ID.TS.BODY computed outside this code base with:
//   openssl pkeyutl -sign -inkey key.pem -rawin -in <(printf '%s' "$ID.$TS.$BODY") | base64
const RFC_KEY = 'MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g';
const RFC_PUBLIC_KEY = 'whpk_11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=';
const RFC_SIG = 'v1a,c75gCOD6beR2ErwtWlaD9MYrvqUgUt9FWMjWe7H7JbW39qlkCA4ZCOO5inodOp5PSf06UC8CEWaRk6xuWL11AQ==';

/** A receiver's check with node:crypto alone: the whpk_ key's raw 32 bytes, ed25519 over id.timestamp.body. */
function verifiesV1a(value: string, publicKey: string, content: string): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(content), key, Buffer.from(value.slice('v1a,'.length), 'base64'));
}

describe('signPayload with v1a (extension)', () => {
  it('matches the fixed vector: ed25519 of id.timestamp.body, base64, after the v1 values', () => {
    const signed = signPayload({
      deliveryId: ID,
      timestamp: TS,
      body: BODY,
      secrets: [NEW_SECRET],
      signingKeys: [signingKeyFrom(RFC_KEY)],
    });
    expect(signed).toBe(`${NEW_SIG} ${RFC_SIG}`);
    expect(publicKeyOf(signingKeyFrom(RFC_KEY))).toBe(RFC_PUBLIC_KEY);
    expect(verifiesV1a(RFC_SIG, RFC_PUBLIC_KEY, `${ID}.${TS}.${BODY}`)).toBe(true);
  });

  it('lists one v1a value per key, new first, each verifying with its own public key only', () => {
    const [now, old] = [newSigningKeyPair(), newSigningKeyPair()];
    const signed = signPayload({
      deliveryId: ID,
      timestamp: TS,
      body: BODY,
      secrets: [NEW_SECRET, OLD_SECRET],
      signingKeys: [signingKeyFrom(now.privateKey), signingKeyFrom(old.privateKey)],
    });
    const values = signed.split(' ');
    expect(values.map((value) => value.split(',')[0])).toEqual(['v1', 'v1', 'v1a', 'v1a']);
    const content = `${ID}.${TS}.${BODY}`;
    expect(verifiesV1a(values[2], now.publicKey, content)).toBe(true);
    expect(verifiesV1a(values[3], old.publicKey, content)).toBe(true);
    expect(verifiesV1a(values[2], old.publicKey, content)).toBe(false);
    expect(verifiesV1a(values[2], now.publicKey, `${content} `)).toBe(false);
  });

  it('leaves the v1 header exactly as before when v1a is off', () => {
    expect(signPayload({ deliveryId: ID, timestamp: TS, body: BODY, secrets: [NEW_SECRET], signingKeys: [] })).toBe(NEW_SIG);
  });

  it('makes key pairs of the documented shapes: whpk_ + base64 of 32 bytes, the private key as PKCS#8', () => {
    const pair = newSigningKeyPair();
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(pair.publicKey.slice(5), 'base64')).toHaveLength(32);
    expect(publicKeyOf(signingKeyFrom(pair.privateKey))).toBe(pair.publicKey);
  });
});

describe('signingKeysOf', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const later = new Date(now.getTime() + 1);
  it('is empty while v1a is off, whatever the previous key', () => {
    expect(signingKeysOf({ signingKey: null, previousSigningKey: 'b', previousSecretExpiresAt: later }, now)).toEqual([]);
  });
  it('adds the previous key while the overlap lasts, and drops it at the expiry instant', () => {
    expect(signingKeysOf({ signingKey: 'a', previousSigningKey: 'b', previousSecretExpiresAt: later }, now)).toEqual(['a', 'b']);
    expect(signingKeysOf({ signingKey: 'a', previousSigningKey: 'b', previousSecretExpiresAt: now }, now)).toEqual(['a']);
    expect(signingKeysOf({ signingKey: 'a', previousSigningKey: null, previousSecretExpiresAt: later }, now)).toEqual(['a']);
  });
});
