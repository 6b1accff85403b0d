import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signingSecrets, signPayload } from './webhook-signer.rules';

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
