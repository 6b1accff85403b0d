import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../src';

/** A delivery signed as the API signs it (spec 6.2 v1, and the v1a extension), checked by the SDK. */
const SECRET = 'q3Jd0X5yVt8Rr2sYw9KpLmNoPqRsTuVwXyZaBcDeF-_';
const BODY = '{"eventName":"property.create","results":[{"id":"prop_1"}],"note":"café €"}';
const NOW = new Date('2030-01-01T00:00:00Z');
const TS = String(Math.floor(NOW.getTime() / 1000));
const ID = 'whd_01JABCDEFGHJKMNPQRSTVWXYZ0';

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { privateKey, whpk: `whpk_${Buffer.from(x, 'base64url').toString('base64')}` };
}
const v1 = (secret: string, body = BODY, ts = TS) => `v1,${createHmac('sha256', secret).update(`${ID}.${ts}.${body}`).digest('base64')}`;
const v1a = (key: ReturnType<typeof keyPair>, body = BODY) =>
  `v1a,${sign(null, Buffer.from(`${ID}.${TS}.${body}`), key.privateKey).toString('base64')}`;
const headers = (signature: string, ts = TS) => ({ 'webhook-id': ID, 'webhook-timestamp': ts, 'webhook-signature': signature });

describe('verifyWebhook', () => {
  const key = keyPair();
  const other = keyPair();
  const signature = `${v1(SECRET)} ${v1a(key)}`;

  it('accepts v1 with the secret and v1a with the public key, and returns the parsed body', () => {
    expect(verifyWebhook(BODY, headers(signature), SECRET, { now: NOW })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(Buffer.from(BODY), headers(signature), key.whpk, { now: NOW })).toEqual(JSON.parse(BODY));
    // Fetch-style Headers and any header case.
    expect(verifyWebhook(BODY, new Headers(headers(signature)), key.whpk, { now: NOW })).toBeTruthy();
    expect(
      verifyWebhook(BODY, { 'Webhook-Id': ID, 'Webhook-Timestamp': TS, 'Webhook-Signature': signature }, SECRET, { now: NOW }),
    ).toBeTruthy();
  });

  it('accepts any one of several values or keys (a rotation)', () => {
    const rotated = `${v1('new-secret')} ${v1(SECRET)} ${v1a(other)} ${v1a(key)}`;
    expect(verifyWebhook(BODY, headers(rotated), SECRET, { now: NOW })).toBeTruthy();
    expect(verifyWebhook(BODY, headers(rotated), key.whpk, { now: NOW })).toBeTruthy();
    expect(verifyWebhook(BODY, headers(v1(SECRET)), ['wrong', SECRET], { now: NOW })).toBeTruthy();
  });

  it('reads a Standard Webhooks whsec_ secret as base64 of the key', () => {
    const whsec = `whsec_${Buffer.from(SECRET).toString('base64')}`;
    expect(verifyWebhook(BODY, headers(v1(SECRET)), whsec, { now: NOW })).toBeTruthy();
  });

  it.each([
    ['a changed body', BODY + ' ', SECRET, signature],
    ['another secret', BODY, 'another-secret', signature],
    ['another public key', BODY, other.whpk, signature],
    ['a v1a value offered to the secret', BODY, SECRET, v1a(key)],
    ['a v1 value offered to the public key', BODY, key.whpk, v1(SECRET)],
    ['a malformed value', BODY, SECRET, 'v1,AAAA v1a,BBBB junk'],
  ])('refuses %s', (_, body, secret, sig) => {
    expect(() => verifyWebhook(body, headers(sig), secret, { now: NOW })).toThrow(WebhookVerificationError);
  });

  it('refuses timestamps more than 5 minutes away, either side, and missing headers', () => {
    for (const offset of [-301, 301]) {
      const ts = String(Number(TS) + offset);
      expect(() => verifyWebhook(BODY, headers(v1(SECRET, BODY, ts), ts), SECRET, { now: NOW })).toThrow('tolerance');
    }
    const ts = String(Number(TS) - 300);
    expect(verifyWebhook(BODY, headers(v1(SECRET, BODY, ts), ts), SECRET, { now: NOW })).toBeTruthy();
    expect(() => verifyWebhook(BODY, { 'webhook-id': ID, 'webhook-timestamp': TS }, SECRET, { now: NOW })).toThrow('missing');
  });

  it('refuses a whpk_ key that is not 32 bytes', () => {
    expect(() => verifyWebhook(BODY, headers(signature), 'whpk_AAAA', { now: NOW })).toThrow('32 bytes');
  });
});
