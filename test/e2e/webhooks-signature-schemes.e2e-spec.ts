import { DataSource } from 'typeorm';
import { ApiClient, clientFor, createAccount, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { validProperty } from '../support/properties';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver';
import { signatureValues, subscriptionOf, v1Signature, verifiesV1a } from '../support/webhooks';
import { createSubscription, hookUrl, openStored, subscriptionRow } from '../support/webhooks-api';

/**
 * Asymmetric signatures (extension, docs/webhooks.md): a subscription with signatureSchemes
 * ["v1", "v1a"] gets ed25519 signatures beside the spec's HMAC ones, verified here with node:crypto
 * alone on real deliveries to a loopback receiver; rotation and PATCH switch the keys.
 */
const ENV = webhookTestEnv('sigschemes', { WEBHOOK_RETRY_BASE_MS: '100' });
const PUBLIC_KEY = /^whpk_[A-Za-z0-9+/]{43}=$/;

describe('webhook signature schemes (v1a extension)', () => {
  let t: TestApp;
  let api: ApiClient;
  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t, api } = engine.started()));

  /** One test delivery through the API, as the receiver got it. */
  async function testDelivery(r: WebhookReceiver, subscriptionId: string): Promise<ReceivedRequest> {
    const { deliveryId } = (await api.post(`/v1/webhooks/${subscriptionId}/test`).send({ eventName: 'property.create' }).expect(202)).body;
    const [request] = await r.waitFor(1, 15_000, (q) => q.headers['webhook-id'] === deliveryId);
    return request;
  }

  describe('validation', () => {
    it.each([
      ['without v1', ['v1a']],
      ['an unknown scheme', ['v1', 'v2']],
      ['a repeated scheme', ['v1', 'v1']],
      ['an empty list', []],
      ['a string', 'v1a'],
      ['null', null],
    ])('refuses %s on create and on PATCH with a 400 problem naming the field', async (_, signatureSchemes) => {
      const created = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], signatureSchemes });
      expect(expectProblem(created, 400, 'validationFailed').errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '#/signatureSchemes',
      ]);
      const sub = await createSubscription(api);
      const patched = await api.patch(`/v1/webhooks/${sub.id}`).send({ signatureSchemes });
      expect(expectProblem(patched, 400, 'validationFailed').errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '#/signatureSchemes',
      ]);
    });
  });

  it('creates a v1a subscription: publicKey on create and reads, the private key sealed at rest', async () => {
    const sub = await createSubscription(api, { signatureSchemes: ['v1', 'v1a'] });
    expect(sub).toMatchObject({ signatureSchemes: ['v1', 'v1a'], publicKey: expect.stringMatching(PUBLIC_KEY) });
    expect(await subscriptionOf(api, sub.id)).toMatchObject({ signatureSchemes: ['v1', 'v1a'], publicKey: sub.publicKey });

    const row = await subscriptionRow(t.app.get(DataSource), sub.id);
    expect(row.public_key).toBe(sub.publicKey);
    expect(row.signing_key).toMatch(/^v1\.[^.]+\./);
    // It opens for <id>:v1a only, as a PKCS#8 ed25519 key whose public half is the one shown.
    const { createPrivateKey, createPublicKey } = await import('node:crypto');
    const opened = openStored(row.signing_key, `${sub.id}:v1a`)!;
    const x = createPublicKey(createPrivateKey({ key: Buffer.from(opened, 'base64'), format: 'der', type: 'pkcs8' })).export({
      format: 'jwk',
    }).x!;
    expect(`whpk_${Buffer.from(x, 'base64url').toString('base64')}`).toBe(sub.publicKey);
    expect(() => openStored(row.signing_key, sub.id)).toThrow();

    // ["v1"] (the default) shows neither field: the subscription reads as the spec shows it.
    const plain = await createSubscription(api, { signatureSchemes: ['v1'] });
    expect(plain).not.toHaveProperty('publicKey');
    expect(plain).not.toHaveProperty('signatureSchemes');
  });

  it('signs a real event delivery with v1 and v1a, each verifying with node:crypto alone', async () => {
    const r = await receiver();
    const sub = await createSubscription(api, { url: `${r.url}/v1a`, eventFilters: ['property.create'], signatureSchemes: ['v1', 'v1a'] });
    await api.post('/v1/properties').send(validProperty()).expect(201);
    const [request] = await r.waitFor(1, 15_000);

    expect(
      String(request.headers['webhook-signature'])
        .split(' ')
        .map((v) => v.split(',')[0]),
    ).toEqual(['v1', 'v1a']);
    expect(signatureValues(request, 'v1')).toEqual([v1Signature(request, sub.signingSecret)]);
    const [v1a] = signatureValues(request, 'v1a');
    expect(verifiesV1a(request, v1a, sub.publicKey)).toBe(true);
    // Any change of the signed bytes breaks it.
    expect(verifiesV1a({ ...request, rawBody: `${request.rawBody} ` }, v1a, sub.publicKey)).toBe(false);
  });

  it('rotates both: for the overlap each delivery carries old and new v1 and v1a values, new first', async () => {
    const r = await receiver();
    const sub = await createSubscription(api, { url: `${r.url}/rotate`, signatureSchemes: ['v1', 'v1a'] });
    const rotated = (await api.post(`/v1/webhooks/${sub.id}/rotateSecret`).expect(200)).body;
    expect(rotated).toEqual({
      id: sub.id,
      signingSecret: expect.any(String),
      previousSecretExpiresAt: expect.any(String),
      publicKey: expect.stringMatching(PUBLIC_KEY),
      // Every subscription read shows the ordering option (issue 31), the rotate answer included.
      ordered: false,
    });
    expect(rotated.publicKey).not.toBe(sub.publicKey);
    expect((await subscriptionOf(api, sub.id)).publicKey).toBe(rotated.publicKey);

    const request = await testDelivery(r, sub.id);
    expect(signatureValues(request, 'v1')).toEqual([v1Signature(request, rotated.signingSecret), v1Signature(request, sub.signingSecret)]);
    const [newer, older] = signatureValues(request, 'v1a');
    expect([verifiesV1a(request, newer, rotated.publicKey), verifiesV1a(request, older, sub.publicKey)]).toEqual([true, true]);
    expect(verifiesV1a(request, newer, sub.publicKey)).toBe(false);
  });

  it('PATCH turns v1a on (a new key) and off (keys dropped, v1 alone again)', async () => {
    const r = await receiver();
    const sub = await createSubscription(api, { url: `${r.url}/patch` });
    expect(signatureValues(await testDelivery(r, sub.id), 'v1a')).toEqual([]);

    const on = (
      await api
        .patch(`/v1/webhooks/${sub.id}`)
        .send({ signatureSchemes: ['v1', 'v1a'] })
        .expect(200)
    ).body;
    expect(on).toMatchObject({ signatureSchemes: ['v1', 'v1a'], publicKey: expect.stringMatching(PUBLIC_KEY) });
    // Sending the same schemes again keeps the key.
    const again = (
      await api
        .patch(`/v1/webhooks/${sub.id}`)
        .send({ signatureSchemes: ['v1a', 'v1'] })
        .expect(200)
    ).body;
    expect(again.publicKey).toBe(on.publicKey);
    const signed = await testDelivery(r, sub.id);
    expect(signatureValues(signed, 'v1')).toEqual([v1Signature(signed, sub.signingSecret)]);
    const [v1a] = signatureValues(signed, 'v1a');
    expect(verifiesV1a(signed, v1a, on.publicKey)).toBe(true);

    const off = (
      await api
        .patch(`/v1/webhooks/${sub.id}`)
        .send({ signatureSchemes: ['v1'] })
        .expect(200)
    ).body;
    expect(off).not.toHaveProperty('publicKey');
    const row = await subscriptionRow(t.app.get(DataSource), sub.id);
    expect([row.signing_key, row.previous_signing_key, row.public_key]).toEqual([null, null, null]);
    const unsigned = await testDelivery(r, sub.id);
    expect(String(unsigned.headers['webhook-signature'])).toBe(`v1,${v1Signature(unsigned, sub.signingSecret)}`);
    // A rotation with v1a off rotates the secret alone.
    const rotated = (await api.post(`/v1/webhooks/${sub.id}/rotateSecret`).expect(200)).body;
    expect(rotated).not.toHaveProperty('publicKey');
  });

  it("another account's subscription is a 404 for PATCH signatureSchemes", async () => {
    const sub = await createSubscription(api);
    const other = clientFor(t, await createAccount(t));
    expectProblem(await other.patch(`/v1/webhooks/${sub.id}`).send({ signatureSchemes: ['v1', 'v1a'] }), 404, 'notFound');
  });
});
