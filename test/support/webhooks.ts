import { createHmac, createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { EventEntity } from '../../src/modules/events/event.entity';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { publishUnchecked } from './events';
import { ApiClient, TestApp } from './app';
import { waitUntil } from './wait';
import { ReceivedRequest } from './webhook-receiver';
import { createSubscription } from './webhooks-api';

/** Helpers for webhook delivery tests (app + worker + loopback receiver). */

let seq = 0;

/** Publishes one event the way a use case does: in a unit of work, heard by onCommitted after commit. */
export async function publishEvent(
  t: TestApp,
  accountId: string,
  eventName: string,
  results: unknown[] = [{ n: ++seq }],
): Promise<EventEntity> {
  const ctx = { accountId, requestId: `req_test_${Date.now()}_${++seq}`, clientRequestId: `client_${seq}` };
  return t.app.get(UnitOfWork).run(ctx, (tx) => publishUnchecked(t.app.get(EventsService), tx, eventName, results));
}

/** A subscription to the receiver at `url` (createSubscription of the API tests, typed for delivery tests). */
export async function subscribe(api: ApiClient, url: string, eventFilters: string[] = ['*'], maxRetries?: number) {
  const body = await createSubscription(api, { url, eventFilters, ...(maxRetries === undefined ? {} : { maxRetries }) });
  return body as { id: string; signingSecret: string; url: string; maxRetries: number };
}

export async function deliveriesOf(api: ApiClient, subscriptionId: string): Promise<Array<Record<string, any>>> {
  const res = await api.get(`/v1/webhooks/${subscriptionId}/deliveries?limit=100`).expect(200);
  return res.body.data;
}

export async function subscriptionOf(api: ApiClient, subscriptionId: string): Promise<Record<string, any>> {
  const res = await api.get('/v1/webhooks').expect(200);
  const found = res.body.data.find((s: { id: string }) => s.id === subscriptionId);
  if (!found) throw new Error(`subscription ${subscriptionId} not listed`);
  return found;
}

/** Polls the delivery log until every row of the subscription is in a final state and there are `count` rows. */
export function waitForFinalDeliveries(api: ApiClient, subscriptionId: string, count: number, timeoutMs = 10_000) {
  return waitUntil(
    async () => {
      const rows = await deliveriesOf(api, subscriptionId);
      return rows.length === count && rows.every((row) => row.status !== 'pending') ? rows : undefined;
    },
    timeoutMs,
    `${count} final deliveries of ${subscriptionId}`,
  );
}

/** Verifies a received request with the official standardwebhooks library, given base64(signingSecret) (spec 6.2). */
export function verifyWithLibrary(request: ReceivedRequest, signingSecret: string): unknown {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
  return new Webhook(Buffer.from(signingSecret).toString('base64')).verify(request.rawBody, headers);
}

/** The values of one scheme in a request's webhook-signature header (`v1` or `v1a`), in order, without their prefix. */
export function signatureValues(request: ReceivedRequest, scheme: 'v1' | 'v1a'): string[] {
  return String(request.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((value) => value.startsWith(`${scheme},`))
    .map((value) => value.slice(scheme.length + 1));
}

/** v1a checked by hand with node:crypto alone: ed25519 of id.timestamp.rawBody under the whpk_ key's 32 raw bytes. */
export function verifiesV1a(request: ReceivedRequest, signature: string, publicKey: string): boolean {
  const x = Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  const content = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody}`;
  return verify(null, Buffer.from(content, 'utf8'), key, Buffer.from(signature, 'base64'));
}

/** v1 checked by hand with node:crypto alone: HMAC-SHA256 keyed by the secret's bytes as returned (spec 6.2). */
export function v1Signature(request: ReceivedRequest, signingSecret: string): string {
  const content = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody}`;
  return createHmac('sha256', Buffer.from(signingSecret, 'utf8')).update(content, 'utf8').digest('base64');
}
