import { randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyring } from '../../../config/keyring';
import { SecretBox } from '../../../platform/secrets/secret-box';
import { DeliverySigningSecrets } from './delivery-signing-secrets';

describe('DeliverySigningSecrets', () => {
  const ring = parseKeyring(`k1:${randomBytes(KEY_BYTES).toString('base64')}`);
  const box = new SecretBox({ secretsKeyring: ring });
  const subscription = (signingSecret: string | null, previous?: { secret: string; expiresAt: Date }) => ({
    url: 'https://example.com/hook',
    enabled: true,
    maxRetries: 5,
    signingSecret,
    previousSecret: previous?.secret ?? null,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
    dark: false,
  });

  it('opens the current secret, and the previous one while its overlap lasts', () => {
    const secrets = new DeliverySigningSecrets(box);
    const current = box.seal('whsec_new', 'sub_1');
    const previous = box.seal('whsec_old', 'sub_1');
    const later = new Date(Date.now() + 60_000);
    const earlier = new Date(Date.now() - 60_000);
    expect(secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current) })).toEqual(['whsec_new']);
    expect(
      secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current, { secret: previous, expiresAt: later }) }),
    ).toEqual(['whsec_new', 'whsec_old']);
    expect(
      secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current, { secret: previous, expiresAt: earlier }) }),
    ).toEqual(['whsec_new']);
  });

  it('signs nothing for the legacy webhook, which has no secret', () => {
    expect(new DeliverySigningSecrets(box).forDelivery({ subscriptionId: 'sub_legacy', subscription: subscription(null) })).toEqual([]);
  });

  it('opens each sealed secret once, then serves it from memory', () => {
    const open = jest.spyOn(box, 'open');
    const secrets = new DeliverySigningSecrets(box);
    const sealed = box.seal('whsec_fanout', 'sub_2');
    for (let i = 0; i < 5; i++) secrets.forDelivery({ subscriptionId: 'sub_2', subscription: subscription(sealed) });
    expect(open).toHaveBeenCalledTimes(1);
    open.mockRestore();
  });

  it('answers undefined for a secret that does not open (another key, another subscription), so the delivery waits', () => {
    const other = new SecretBox({ secretsKeyring: parseKeyring(`k2:${randomBytes(KEY_BYTES).toString('base64')}`) });
    const secrets = new DeliverySigningSecrets(box);
    expect(secrets.forDelivery({ subscriptionId: 'sub_3', subscription: subscription(other.seal('whsec_x', 'sub_3')) })).toBeUndefined();
    expect(secrets.forDelivery({ subscriptionId: 'sub_4', subscription: subscription(box.seal('whsec_y', 'sub_3')) })).toBeUndefined();
  });
});
