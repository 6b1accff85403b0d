import { createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { KEY_BYTES, parseKeyring } from '../../../../config/keyring';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { DeliverySigningSecrets } from './delivery-signing-secrets';
import { newSigningKeyPair, PUBLIC_KEY_PREFIX, signingKeyContext } from '../../webhook-signer.rules';

describe('DeliverySigningSecrets', () => {
  const ring = parseKeyring(`k1:${randomBytes(KEY_BYTES).toString('base64')}`);
  const box = new SecretBox({ secretsKeyring: ring });
  const subscription = (
    signingSecret: string | null,
    previous?: { secret: string; expiresAt: Date },
    keys: { signingKey?: string; previousSigningKey?: string } = {},
  ) => ({
    url: 'https://example.com/hook',
    enabled: true,
    maxRetries: 5,
    signingSecret,
    previousSecret: previous?.secret ?? null,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
    signingKey: keys.signingKey ?? null,
    previousSigningKey: keys.previousSigningKey ?? null,
    dark: false,
  });

  it('opens the current secret, and the previous one while its overlap lasts', () => {
    const secrets = new DeliverySigningSecrets(box);
    const current = box.seal('whsec_new', 'sub_1');
    const previous = box.seal('whsec_old', 'sub_1');
    const later = new Date(Date.now() + 60_000);
    const earlier = new Date(Date.now() - 60_000);
    expect(secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current) })?.secrets).toEqual(['whsec_new']);
    expect(
      secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current, { secret: previous, expiresAt: later }) })
        ?.secrets,
    ).toEqual(['whsec_new', 'whsec_old']);
    expect(
      secrets.forDelivery({ subscriptionId: 'sub_1', subscription: subscription(current, { secret: previous, expiresAt: earlier }) })
        ?.secrets,
    ).toEqual(['whsec_new']);
  });

  it('signs nothing for the legacy webhook, which has no secret', () => {
    expect(new DeliverySigningSecrets(box).forDelivery({ subscriptionId: 'sub_legacy', subscription: subscription(null) })).toEqual({
      secrets: [],
      signingKeys: [],
    });
  });

  it('opens the v1a keys (sealed for <id>:v1a) with the same overlap, none while v1a is off', () => {
    const secrets = new DeliverySigningSecrets(box);
    const [now, old] = [newSigningKeyPair(), newSigningKeyPair()];
    const sealedKey = (pair: { privateKey: string }) => box.seal(pair.privateKey, signingKeyContext('sub_5'));
    const current = box.seal('whsec_new', 'sub_5');
    const later = new Date(Date.now() + 60_000);
    const keys = { signingKey: sealedKey(now), previousSigningKey: sealedKey(old) };
    const withOverlap = secrets.forDelivery({
      subscriptionId: 'sub_5',
      subscription: subscription(current, { secret: current, expiresAt: later }, keys),
    });
    // Each opened key signs what its public key verifies.
    const publicKeys = [now, old].map(({ publicKey }) =>
      createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey.slice(PUBLIC_KEY_PREFIX.length), 'base64').toString('base64url') },
        format: 'jwk',
      }),
    );
    expect(withOverlap?.signingKeys.map((key) => createPublicKey(key).export({ format: 'jwk' }).x)).toEqual(
      publicKeys.map((key) => key.export({ format: 'jwk' }).x),
    );
    expect(verify(null, Buffer.from('m'), publicKeys[0], sign(null, Buffer.from('m'), withOverlap!.signingKeys[0]))).toBe(true);
    const afterOverlap = secrets.forDelivery({ subscriptionId: 'sub_5', subscription: subscription(current, undefined, keys) });
    expect(afterOverlap?.signingKeys).toHaveLength(1);
    expect(secrets.forDelivery({ subscriptionId: 'sub_5', subscription: subscription(current) })?.signingKeys).toEqual([]);
    // A key sealed as the HMAC secret's context (not <id>:v1a) does not open: the delivery waits.
    const misplaced = { signingKey: box.seal(now.privateKey, 'sub_5') };
    expect(secrets.forDelivery({ subscriptionId: 'sub_5', subscription: subscription(current, undefined, misplaced) })).toBeUndefined();
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
