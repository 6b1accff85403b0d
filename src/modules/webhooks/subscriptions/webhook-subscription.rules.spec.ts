import {
  distinctEventFilters,
  newSigningSecret,
  normaliseWebhookUrl,
  previousSecretExpiry,
  ROTATION_OVERLAP_MS,
  standardWebhooksSecret,
} from './webhook-subscription.rules';
import { Webhook } from 'standardwebhooks';
import { signPayload } from '../webhook-signer.rules';

describe('webhook subscription rules', () => {
  it('mints 32-byte base64url secrets (43 characters, no padding), different every time', () => {
    const secrets = Array.from({ length: 200 }, newSigningSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('keeps a replaced secret for 24 hours', () => {
    const now = new Date('2026-01-01T10:00:00.000Z');
    expect(previousSecretExpiry(now).toISOString()).toBe('2026-01-02T10:00:00.000Z');
    expect(ROTATION_OVERLAP_MS).toBe(86_400_000);
  });

  describe('normaliseWebhookUrl', () => {
    const n = (raw: string) => normaliseWebhookUrl(new URL(raw));

    it('lower-cases scheme and host and drops the default port', () => {
      expect(n('HTTPS://Hooks.Example.COM:443/In')).toBe('https://hooks.example.com/In');
      expect(n('http://example.com:80/x')).toBe('http://example.com/x');
    });

    it('keeps a non-default port, the path case and the query', () => {
      expect(n('https://example.com:8443/Hook?a=1&B=2')).toBe('https://example.com:8443/Hook?a=1&B=2');
    });

    it('adds the root path and drops the fragment', () => {
      expect(n('https://example.com')).toBe('https://example.com/');
      expect(n('https://example.com/x#frag')).toBe('https://example.com/x');
    });

    it('serialises international names in punycode', () => {
      expect(n('https://bücher.example/')).toBe('https://xn--bcher-kva.example/');
    });

    it('does not alias different paths', () => {
      expect(n('https://example.com/a')).not.toBe(n('https://example.com/a/'));
    });
  });

  it('de-duplicates event filters, keeping first-seen order', () => {
    expect(distinctEventFilters(['jobRequest.*', 'property.create', 'jobRequest.*', '*'])).toEqual([
      'jobRequest.*',
      'property.create',
      '*',
    ]);
    expect(distinctEventFilters(['a.b'])).toEqual(['a.b']);
  });

  it('gives the secret as whsec_ + base64 of its bytes, which a Standard Webhooks library verifies v1 signatures with', () => {
    const secret = newSigningSecret();
    const whsec = standardWebhooksSecret(secret);
    expect(whsec).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"eventName":"property.create"}';
    const signature = signPayload({ deliveryId: 'whd_1', timestamp, body, secrets: [secret] });
    const headers = { 'webhook-id': 'whd_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(new Webhook(whsec).verify(body, headers)).toEqual({ eventName: 'property.create' });
    expect(() => new Webhook(standardWebhooksSecret(newSigningSecret())).verify(body, headers)).toThrow();
  });
});
