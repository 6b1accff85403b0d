import { DataSource } from 'typeorm';
import { SNIPPET_RETENTION_MS } from '../../src/modules/webhooks/webhook-retention.rules';
import { WebhookDeliveriesRepository } from '../../src/modules/webhooks/webhook-deliveries.repository';
import { ApiClient, clientFor, createAccount, TestAccount, TestApp } from '../support/app';
import { startReceiver } from '../support/webhook-receiver';
import { publishEvent, subscribe, waitForFinalDeliveries } from '../support/webhooks';
import { TestWorker } from '../support/worker';
import { QUICK_RETRIES, useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';

/**
 * The delivery log that explains (issue 13, an extension of the spec): every attempt's status, resolved
 * address, timings and, when there was no usable answer, its error class, one for each cause; the
 * single-delivery route; response snippets dropped after 7 days.
 */
const ENV = webhookTestEnv('delivery-log', QUICK_RETRIES);

describe('webhook delivery log', () => {
  let t: TestApp;
  let db: DataSource;
  let worker: TestWorker;
  let account: TestAccount;
  let api: ApiClient;

  /** An event name only one subscription of this file listens to. */
  let names = 0;
  const uniqueEvent = () => `deliveryLog.e${++names}`;

  /** One event to a fresh subscription at `url` (no retries), its final delivery row as the list shows it. */
  async function deliverOnce(url: string): Promise<Record<string, any>> {
    const eventName = uniqueEvent();
    const sub = await subscribe(api, url, [eventName], 0);
    await publishEvent(t, account.accountId, eventName);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    return { ...row, subscriptionId: sub.id };
  }

  /** A subscription accepted at a reachable URL whose stored url then changes to `url` (the host "changed" since). */
  async function deliverOnceAfterUrlChange(url: string): Promise<Record<string, any>> {
    const r = await receiver();
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/changed`, [eventName], 0);
    await db.query(`UPDATE webhook_subscriptions SET url = $2 WHERE id = $1`, [sub.id, url]);
    await publishEvent(t, account.accountId, eventName);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(r.requests).toHaveLength(0);
    return row;
  }

  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;
  beforeAll(() => ({ t, db, worker, account, api } = engine.started()));

  it('records status, resolved address and timings of each attempt; GET …/deliveries/{id} shows the same row', async () => {
    const r = await receiver();
    r.enqueue({ status: 200, body: 'thanks' });
    const row = await deliverOnce(`${r.url}/explained`);
    expect(row.status).toBe('delivered');
    const [attempt] = row.attempts;
    expect(attempt).toMatchObject({
      responseCode: 200,
      responseSnippet: 'thanks',
      errorMessage: null,
      errorClass: null,
      resolvedIp: '127.0.0.1',
      retryAfterMs: null,
    });
    // http: no TLS; an IP literal: no lookup; a new connection: connect measured.
    expect(attempt.timings).toEqual({
      dnsMs: expect.any(Number),
      connectMs: expect.any(Number),
      tlsMs: null,
      firstByteMs: expect.any(Number),
      totalMs: expect.any(Number),
    });
    expect(attempt.timings.firstByteMs).toBeLessThanOrEqual(attempt.timings.totalMs);

    const detail = await api.get(`/v1/webhooks/${row.subscriptionId}/deliveries/${row.id}`).expect(200);
    const { subscriptionId: _, ...listed } = row;
    expect(detail.body).toEqual(listed);
  });

  it('answers 404 for a delivery that is not one of this subscription of this account', async () => {
    const r = await receiver();
    const row = await deliverOnce(`${r.url}/isolation`);
    const sibling = await subscribe(api, `${r.url}/sibling`, ['nothing.matches'], 0);
    await api.get(`/v1/webhooks/${sibling.id}/deliveries/${row.id}`).expect(404);
    await api.get(`/v1/webhooks/${row.subscriptionId}/deliveries/whd_00000000000000000000000000`).expect(404);
    await api.get(`/v1/webhooks/${row.subscriptionId}/deliveries/not-an-id`).expect(404);
    const other = clientFor(t, await createAccount(t));
    await other.get(`/v1/webhooks/${row.subscriptionId}/deliveries/${row.id}`).expect(404);
  });

  it('error class refused: nothing listens on the port', async () => {
    const closed = await startReceiver();
    await closed.close();
    const row = await deliverOnce(`${closed.url}/refused`);
    expect(row.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'refused', resolvedIp: '127.0.0.1' });
    expect(row.attempts[0].errorMessage).toMatch(/ECONNREFUSED/);
  });

  it('error class timeout: no answer within WEBHOOK_TIMEOUT_MS', async () => {
    const r = await receiver();
    r.enqueue({ status: 200, delayMs: 3_000 });
    const row = await deliverOnce(`${r.url}/slow`);
    expect(row.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'timeout', errorMessage: 'timed out after 1000 ms' });
    expect(row.attempts[0].timings.firstByteMs).toBeNull();
  });

  it('error class tls: the handshake fails (https to a plain HTTP port)', async () => {
    const r = await receiver();
    const row = await deliverOnce(`${r.url.replace('http:', 'https:')}/tls`);
    expect(row.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'tls', resolvedIp: '127.0.0.1' });
    expect(row.attempts[0].timings.tlsMs).toBeNull();
  });

  it('error class tooLarge: response headers over the limit (no answer); a body over 64 KB is noted on the answer', async () => {
    const r = await receiver();
    r.enqueue({ status: 200, headers: { 'x-padding': 'x'.repeat(64 * 1024) } });
    const row = await deliverOnce(`${r.url}/huge-headers`);
    expect(row).toMatchObject({ status: 'failed_permanent' });
    expect(row.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'tooLarge' });

    r.enqueue({ status: 200, body: 'y'.repeat(100 * 1024) });
    const big = await deliverOnce(`${r.url}/huge-body`);
    expect(big).toMatchObject({ status: 'delivered' });
    expect(big.attempts[0]).toMatchObject({ responseCode: 200, errorClass: 'tooLarge' });
    expect(Buffer.byteLength(big.attempts[0].responseSnippet)).toBe(1024);
  });

  it('error class dns: the host no longer resolves (a delivery-time URL rule: failed at once)', async () => {
    const row = await deliverOnceAfterUrlChange('http://no-such-host.invalid/hook');
    expect(row).toMatchObject({ status: 'failed_permanent' });
    expect(row.attempts[0]).toMatchObject({
      responseCode: null,
      errorClass: 'dns',
      errorMessage: 'URL rule violation: host does not resolve',
    });
  });

  it('error class urlRule: any other URL rule broken at delivery time', async () => {
    const row = await deliverOnceAfterUrlChange('ftp://127.0.0.1/hook');
    expect(row).toMatchObject({ status: 'failed_permanent' });
    expect(row.attempts[0]).toMatchObject({ responseCode: null, errorClass: 'urlRule' });
    expect(row.attempts[0].errorMessage).toMatch(/^URL rule violation: /);
  });

  it('drops response snippets once they are 7 days old, keeping the attempts', async () => {
    const r = await receiver();
    r.enqueue({ status: 500, body: 'first' }, { status: 200, body: 'second' });
    const eventName = uniqueEvent();
    const sub = await subscribe(api, `${r.url}/snippets`, [eventName], 1);
    await publishEvent(t, account.accountId, eventName);
    const [row] = await waitForFinalDeliveries(api, sub.id, 1);
    expect(row.attempts.map((a: { responseSnippet: string }) => a.responseSnippet)).toEqual(['first', 'second']);

    // The first attempt is 8 days old, the second 1 day: only the first loses its snippet.
    const day = 24 * 3600 * 1000;
    const shifted = row.attempts.map((a: Record<string, unknown>, i: number) => ({
      ...a,
      at: new Date(Date.now() - (i === 0 ? 8 : 1) * day).toISOString(),
    }));
    await db.query(`UPDATE webhook_deliveries SET attempts = $2, snippets_expire_at = $3 WHERE id = $1`, [
      row.id,
      JSON.stringify(shifted),
      new Date(Date.parse(shifted[0].at) + SNIPPET_RETENTION_MS),
    ]);
    const repository = worker.ctx.get(WebhookDeliveriesRepository);
    expect(await repository.dropExpiredSnippets(new Date(), SNIPPET_RETENTION_MS, 1000)).toBeGreaterThanOrEqual(1);
    const after = (await api.get(`/v1/webhooks/${sub.id}/deliveries/${row.id}`).expect(200)).body;
    expect(after.attempts.map((a: { responseSnippet: string }) => a.responseSnippet)).toEqual([null, 'second']);
    expect(after.attempts[0]).toMatchObject({ responseCode: 500, errorMessage: 'non-2xx response (HTTP 500)' });
    const [{ snippets_expire_at }] = await db.query(`SELECT snippets_expire_at FROM webhook_deliveries WHERE id = $1`, [row.id]);
    expect(snippets_expire_at.getTime()).toBe(Date.parse(shifted[1].at) + SNIPPET_RETENTION_MS);
    // Nothing left to drop until the second one turns 7 days old.
    await repository.dropExpiredSnippets(new Date(), SNIPPET_RETENTION_MS, 1000);
    expect((await api.get(`/v1/webhooks/${sub.id}/deliveries/${row.id}`).expect(200)).body.attempts[1].responseSnippet).toBe('second');
  });
});
