import { ApiClient } from '../support/app';
import { testCa, TestCa } from '../support/certificates';
import { MtlsReceiver, startMtlsReceiver } from '../support/mtls-receiver';
import { expectProblem } from '../support/problem';
import { sleep } from '../support/wait';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { subscriptionOf, waitForFinalDeliveries } from '../support/webhooks';
import { createSubscription, hookUrl, subscriptionRow } from '../support/webhooks-api';

/**
 * Mutual TLS towards receivers (issue 42, an extension): an HTTPS receiver on 127.0.0.1 that requires a
 * client certificate from its CA, and certificates this file makes (test/support/certificates.ts). The
 * subscription trusts only the CA it gives (serverCaCertificate); reads never show the key or the client
 * certificate; an expired certificate is refused at create, and fails an attempt without a retry later.
 */
const ENV = webhookTestEnv('rmtls', { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });

describe('receivers behind mutual TLS (issue 42)', () => {
  let api: ApiClient;
  const engine = useWebhookEngine(ENV);
  let ca: TestCa;
  let receiver: MtlsReceiver;
  beforeAll(async () => {
    ({ api } = engine.started());
    ca = testCa('Receiver Test CA');
    receiver = await startMtlsReceiver(ca.issue('receiver', { ip: '127.0.0.1' }), ca.cert);
  });
  afterAll(() => receiver?.close());

  async function testDelivery(subscriptionId: string): Promise<string> {
    const { deliveryId } = (await api.post(`/v1/webhooks/${subscriptionId}/test`).send({ eventName: 'property.create' }).expect(202)).body;
    return deliveryId;
  }

  async function finalAttempts(subscriptionId: string, count: number): Promise<Array<Record<string, any>>> {
    const rows = await waitForFinalDeliveries(api, subscriptionId, count, 15_000);
    const full = await Promise.all(rows.map((row) => api.get(`/v1/webhooks/${subscriptionId}/deliveries/${row.id}`).expect(200)));
    return full.map((res) => res.body);
  }

  describe('validation', () => {
    it.each([
      [
        'a certificate that does not parse',
        () => ({ clientCertificate: 'not a pem', clientKey: ca.issue('c').key }),
        '#/mtls/clientCertificate',
      ],
      ['a key that does not match', () => ({ clientCertificate: ca.issue('c').cert, clientKey: ca.issue('d').key }), '#/mtls/clientKey'],
      [
        'a key that does not parse',
        () => ({ clientCertificate: ca.issue('c').cert, clientKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
        '#/mtls/clientKey',
      ],
      ['a CA that does not parse', () => ({ ...ca.issue('c'), serverCaCertificate: 'nope' }), '#/mtls/serverCaCertificate'],
      [
        'an expired certificate',
        () => ({ ...ca.issue('old', { notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 3600_000) }) }),
        '#/mtls/clientCertificate',
      ],
      ['no clientKey', () => ({ clientCertificate: ca.issue('c').cert }), '#/mtls/clientKey'],
    ])('refuses %s on create and PATCH: 400 validationFailed naming the field', async (_, fields, pointer) => {
      const issued = fields() as {
        cert?: string;
        key?: string;
        clientCertificate?: string;
        clientKey?: string;
        serverCaCertificate?: string;
      };
      const mtls = {
        ...(issued.cert !== undefined ? { clientCertificate: issued.cert, clientKey: issued.key } : {}),
        ...Object.fromEntries(Object.entries(issued).filter(([key]) => key !== 'cert' && key !== 'key')),
      };
      const created = await api.post('/v1/webhooks').send({ url: hookUrl(), eventFilters: ['*'], mtls });
      expect(expectProblem(created, 400, 'validationFailed').errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
      const sub = await createSubscription(api);
      const patched = await api.patch(`/v1/webhooks/${sub.id}`).send({ mtls });
      expect(expectProblem(patched, 400, 'validationFailed').errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
    });
  });

  it('presents the client certificate the receiver requires; reads show subject, expiry and the CA only; the key sealed', async () => {
    const client = ca.issue('acme-client');
    const sub = await createSubscription(api, {
      url: `${receiver.url}/ok`,
      eventFilters: ['property.create'],
      mtls: { clientCertificate: client.cert, clientKey: client.key, serverCaCertificate: ca.cert },
    });
    expect(sub.mtls).toEqual({
      certificateSubject: 'CN=acme-client, O=Receiver Auth Tests',
      certificateExpiresAt: expect.any(String),
      serverCaCertificate: ca.cert,
    });
    const listed = await subscriptionOf(api, sub.id);
    expect(listed.mtls).toEqual(sub.mtls);
    const keyBody = client.key.split('\n')[1];
    expect(JSON.stringify(listed)).not.toContain(keyBody);
    expect(JSON.stringify(listed)).not.toContain(client.cert.split('\n')[1]);
    const row = await subscriptionRow(engine.started().db, sub.id);
    expect(JSON.stringify(row)).not.toContain(keyBody);

    const deliveryId = await testDelivery(sub.id);
    const [delivery] = await finalAttempts(sub.id, 1);
    expect(delivery).toMatchObject({ id: deliveryId, status: 'delivered' });
    expect(receiver.requests.find((q) => q.headers['webhook-id'] === deliveryId)?.clientName).toBe('acme-client');
  });

  it('a client certificate from another CA is refused by the receiver: the attempt fails', async () => {
    const other = testCa('Someone Else').issue('stranger');
    const refusedBefore = receiver.refused;
    const sub = await createSubscription(api, {
      url: `${receiver.url}/wrong`,
      eventFilters: ['property.create'],
      maxRetries: 0,
      mtls: { clientCertificate: other.cert, clientKey: other.key, serverCaCertificate: ca.cert },
    });
    const deliveryId = await testDelivery(sub.id);
    const [delivery] = await finalAttempts(sub.id, 1);
    expect(delivery.status).toBe('failed_permanent');
    expect(['tls', 'network']).toContain(delivery.attempts[0].errorClass);
    expect(receiver.requests.some((q) => q.headers['webhook-id'] === deliveryId)).toBe(false);
    expect(receiver.refused).toBeGreaterThan(refusedBefore);
  });

  it('trusts only serverCaCertificate when given: a receiver from another CA is a TLS failure', async () => {
    const client = ca.issue('acme-client');
    const sub = await createSubscription(api, {
      url: `${receiver.url}/ca`,
      eventFilters: ['property.create'],
      maxRetries: 0,
      mtls: { clientCertificate: client.cert, clientKey: client.key, serverCaCertificate: testCa('Not The Receiver CA').cert },
    });
    await testDelivery(sub.id);
    const [delivery] = await finalAttempts(sub.id, 1);
    expect(delivery.status).toBe('failed_permanent');
    expect(delivery.attempts[0].errorClass).toBe('tls');
  });

  it('a certificate that has expired since fails the attempt without a retry (clientCertificateExpired); mtls: null removes it', async () => {
    const client = ca.issue('short-lived', { notAfter: new Date(Date.now() + 2_000) });
    const sub = await createSubscription(api, {
      url: `${receiver.url}/expired`,
      eventFilters: ['property.create'],
      maxRetries: 5,
      mtls: { clientCertificate: client.cert, clientKey: client.key, serverCaCertificate: ca.cert },
    });
    await sleep(Math.max(0, Date.parse(sub.mtls.certificateExpiresAt) - Date.now()) + 100);
    await testDelivery(sub.id);
    const [delivery] = await finalAttempts(sub.id, 1);
    expect(delivery.status).toBe('failed_permanent');
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ errorClass: 'clientCertificateExpired', responseCode: null });
    // A second delivery fails the same way; the operational event is published once per certificate.
    await testDelivery(sub.id);
    await finalAttempts(sub.id, 2);
    const events = await engine
      .started()
      .db.query(`SELECT client_request_id, results FROM events WHERE account_id = $1 AND event_name = 'webhook.clientCertificateExpired'`, [
        engine.started().account.accountId,
      ]);
    expect(events).toHaveLength(1);
    expect(events[0].client_request_id).toBe(sub.id);
    expect(events[0].results[0]).toMatchObject({
      subscriptionId: sub.id,
      certificateSubject: 'CN=short-lived, O=Receiver Auth Tests',
      certificateExpiresAt: sub.mtls.certificateExpiresAt,
      deliveryId: delivery.id,
    });

    const removed = (await api.patch(`/v1/webhooks/${sub.id}`).send({ mtls: null }).expect(200)).body;
    expect(removed).not.toHaveProperty('mtls');
  });
});
