import { randomBytes } from 'node:crypto';
import { KEY_BYTES, parseKeyring } from '../../../../config/keyring';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { newSigningKeyPair, signingKeyContext } from '../../webhook-signer.rules';
import { StoredSecrets, WebhookSubscriptionsRepository } from '../../webhook-subscriptions.repository';
import { WebhookSecretsService } from './webhook-secrets.service';
import { ReceiverAuthUpkeep } from './receiver-auth-upkeep';

/** The upkeep's resealing, with the repository faked: every sealed value, v1a keys included, moves to the first key. */
describe('WebhookSecretsService resealing', () => {
  const k1 = `k1:${randomBytes(KEY_BYTES).toString('base64')}`;
  const k2 = `k2:${randomBytes(KEY_BYTES).toString('base64')}`;
  const old = new SecretBox({ secretsKeyring: parseKeyring(k1) });
  const rotated = new SecretBox({ secretsKeyring: parseKeyring(`${k2},${k1}`) });

  function run(rows: StoredSecrets[]) {
    const replaced: Array<{ was: StoredSecrets; now: StoredSecrets }> = [];
    let served = false;
    const repository = {
      clearExpiredPreviousSecrets: async () => 0,
      withSecretsNotSealedBy: async () => (served ? [] : ((served = true), rows)),
      replaceSecrets: async (changes: typeof replaced) => (replaced.push(...changes), changes.length),
    } as unknown as WebhookSubscriptionsRepository;
    const receiverAuth = { run: async () => ({ resealed: 0, unopenable: 0 }) } as unknown as ReceiverAuthUpkeep;
    return { replaced, result: new WebhookSecretsService(repository, rotated, receiverAuth).run() };
  }

  it('reseals the secrets and the v1a keys (each with its own context), keeping nulls null', async () => {
    const [current, previous] = [newSigningKeyPair(), newSigningKeyPair()];
    const id = 'sub_1';
    const was: StoredSecrets = {
      id,
      signingSecret: old.seal('secret-now', id),
      previousSecret: null,
      signingKey: old.seal(current.privateKey, signingKeyContext(id)),
      previousSigningKey: old.seal(previous.privateKey, signingKeyContext(id)),
    };
    const plain: StoredSecrets = {
      id: 'sub_2',
      signingSecret: old.seal('other', 'sub_2'),
      previousSecret: null,
      signingKey: null,
      previousSigningKey: null,
    };
    const { replaced, result } = run([was, plain]);
    expect(await result).toMatchObject({ resealed: 2, unopenable: 0 });
    const [{ now }, { now: plainNow }] = replaced;
    for (const value of [now.signingSecret, now.signingKey!, now.previousSigningKey!]) expect(value.startsWith('v1.k2.')).toBe(true);
    expect(now.previousSecret).toBeNull();
    expect(rotated.open(now.signingSecret, id)).toBe('secret-now');
    expect(rotated.open(now.signingKey!, signingKeyContext(id))).toBe(current.privateKey);
    expect(rotated.open(now.previousSigningKey!, signingKeyContext(id))).toBe(previous.privateKey);
    expect([plainNow.signingKey, plainNow.previousSigningKey]).toEqual([null, null]);
  });
});
