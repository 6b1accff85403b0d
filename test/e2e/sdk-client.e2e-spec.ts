import { AddressInfo } from 'node:net';
import {
  createPlatformClient,
  errorOf,
  isEvent,
  must,
  PlatformApiError,
  PlatformClient,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src';
import { TestAccount, TestApp } from '../support/app';
import { useWebhookEngine, webhookTestEnv } from '../support/webhook-engine';
import { uniq, validProperty } from '../support/properties';

/**
 * The TypeScript SDK (clients/typescript) against the running API over HTTP: its generated types on
 * real calls in the spec's dependency order, paginate() over 250 bookings, a create retried through a
 * 503 injected after the server did the work (no double create), and verifyWebhook on real deliveries
 * (v1 and the v1a extension).
 */
// 250 creates in a few seconds from one key.
const ENV = webhookTestEnv('sdk', { RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' });

describe('TypeScript SDK against the running API', () => {
  let t: TestApp;
  let account: TestAccount;
  let baseUrl: string;
  let sdk: PlatformClient;
  const engine = useWebhookEngine(ENV);
  const receiver = engine.receiver;

  beforeAll(() => {
    ({ t, account } = engine.started());
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    sdk = createPlatformClient({ baseUrl, apiKey: account.apiKey });
  });

  async function newProperty(client = sdk) {
    return must(
      client.api.POST('/v1/properties', {
        body: validProperty(),
      }),
    );
  }

  function bookingBody(propertyId: string, day: number) {
    const start = new Date(Date.UTC(2031, 0, 1) + day * 86_400_000);
    return {
      sourceBookingId: `bk-${uniq()}`,
      propertyId,
      startDate: new Date(start.getTime() + 15 * 3_600_000).toISOString(),
      endDate: new Date(start.getTime() + 34 * 3_600_000).toISOString(),
      numberOfGuests: 2,
      guestDetails: [{ sourceId: 'guest-1', firstName: 'Ada' }],
    };
  }

  it('walks the dependency order: property, checklist, booking, reminder, job request, comment, cancel', async () => {
    const { api } = sdk;
    const property = await newProperty();
    const checklist = await must(
      api.POST('/v1/checklists', {
        body: {
          title: 'Turnover',
          propertyId: property.propertyId,
          taskGroups: [{ title: 'Kitchen', tasks: [{ label: 'Wipe the counters' }] }],
        },
      }),
    );
    const booking = await must(api.POST('/v1/bookings', { body: bookingBody(property.propertyId, 0) }));
    const reminder = await must(
      api.POST('/v1/reminders', { body: { title: 'Check the boiler', date: booking.endDate, propertyId: property.propertyId } }),
    );
    const job = await must(
      api.POST('/v1/jobRequests', {
        body: {
          serviceProviders: [{ email: 'ann@cleaners.example' }],
          time: { type: 'fixed', startTime: booking.endDate, durationInHours: 2 },
          property: { propertyId: property.propertyId },
          checklists: [{ checklistId: checklist.checklistId }],
        },
      }),
    );
    const comment = await must(
      api.POST('/v1/jobRequests/{jobRequestId}/comments', {
        params: { path: { jobRequestId: job.jobRequestId } },
        body: { message: 'Keys are in the lockbox' },
      }),
    );
    const canceled = await must(
      api.POST('/v1/jobRequests/{jobRequestId}/cancel', { params: { path: { jobRequestId: job.jobRequestId } } }),
    );

    expect(reminder.propertyId).toBe(property.propertyId);
    expect(comment.message).toBe('Keys are in the lockbox');
    expect(canceled.jobRequestId).toBe(job.jobRequestId);
    const read = await must(api.GET('/v1/jobRequests/{jobRequestId}', { params: { path: { jobRequestId: job.jobRequestId } } }));
    expect(read.status).toBe(canceled.status);
    const comments = await must(
      api.GET('/v1/jobRequests/{jobRequestId}/comments', { params: { path: { jobRequestId: job.jobRequestId } } }),
    );
    expect(comments.data.map((c) => c.message)).toContain('Keys are in the lockbox');

    // A failure is the problem document, typed, never an exception from the transport.
    const missing = await api.GET('/v1/bookings/{bookingId}', { params: { path: { bookingId: 'bk_nope' } } });
    expect(missing.data).toBeUndefined();
    const error = errorOf(missing.response, missing.error);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect({ status: error.status, code: error.problem?.code }).toEqual({ status: 404, code: 'notFound' });
    await expect(must(api.GET('/v1/bookings/{bookingId}', { params: { path: { bookingId: 'bk_nope' } } }))).rejects.toThrow('404 notFound');
  });

  it('paginate() walks 250 bookings page by page (3 pages of at most 100), each once', async () => {
    const property = await newProperty();
    const created: string[] = [];
    for (let batch = 0; batch < 250; batch += 25) {
      const bookings = await Promise.all(
        Array.from({ length: 25 }, (_, i) => must(sdk.api.POST('/v1/bookings', { body: bookingBody(property.propertyId, batch + i) }))),
      );
      created.push(...bookings.map((b) => b.bookingId));
    }
    const pages: number[] = [];
    const counting = createPlatformClient({
      baseUrl,
      apiKey: account.apiKey,
      fetch: async (request) => {
        pages.push(1);
        return fetch(request);
      },
    });
    const seen: string[] = [];
    const query = { propertyId: property.propertyId, dateFrom: '2030-12-01T00:00:00Z', dateTo: '2032-01-01T00:00:00Z', limit: 100 };
    for await (const booking of counting.paginate('/v1/bookings', { query })) seen.push(booking.bookingId);
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(pages).toHaveLength(3);
  }, 120_000);

  it('retries a create through a 503 the server never sent, with the same Idempotency-Key: created once', async () => {
    const property = await newProperty();
    const attempts: Array<{ key: string | null; status: number; body: any }> = [];
    // A proxy that loses the first answer: the server created the booking, the client sees a 503.
    const lossy = createPlatformClient({
      baseUrl,
      apiKey: account.apiKey,
      retry: { baseDelayMs: 10 },
      fetch: async (request) => {
        const response = await fetch(request);
        const body = await response.clone().json();
        attempts.push({ key: request.headers.get('idempotency-key'), status: response.status, body });
        if (attempts.length > 1) return response;
        return new Response(JSON.stringify({ code: 'serviceUnavailable' }), {
          status: 503,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '0' },
        });
      },
    });
    const body = bookingBody(property.propertyId, 400);
    const { data, response } = await lossy.api.POST('/v1/bookings', { body });

    expect(attempts.map((a) => a.status)).toEqual([201, 201]);
    expect(attempts[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts[1].key).toBe(attempts[0].key);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(data?.bookingId).toBe(attempts[0].body.bookingId);
    const listed: string[] = [];
    const query = { propertyId: property.propertyId, dateFrom: '2030-01-01T00:00:00Z', dateTo: '2040-01-01T00:00:00Z' };
    for await (const booking of sdk.paginate('/v1/bookings', { query })) listed.push(booking.sourceBookingId);
    expect(listed).toEqual([body.sourceBookingId]);
  });

  it('verifyWebhook accepts real deliveries with the secret (v1) and the public key (v1a), and nothing tampered', async () => {
    const r = await receiver();
    const subscription = await must(
      sdk.api.POST('/v1/webhooks', { body: { url: `${r.url}/sdk`, eventFilters: ['property.create'], signatureSchemes: ['v1', 'v1a'] } }),
    );
    const property = await newProperty();
    const [delivery] = await r.waitFor(1, 15_000);
    const { signingSecret, publicKey } = subscription;

    for (const key of [signingSecret, publicKey!]) {
      const payload = verifyWebhook(delivery.rawBody, delivery.headers, key);
      expect(isEvent(payload, 'property.create')).toBe(true);
      if (isEvent(payload, 'property.create')) expect(payload.results[0].propertyId).toBe(property.propertyId);
    }
    expect(() => verifyWebhook(`${delivery.rawBody} `, delivery.headers, publicKey!)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(delivery.rawBody, delivery.headers, 'not-the-secret')).toThrow('no matching signature');

    // After a rotation the old and new values are both sent: each key verifies on its own.
    const rotated = await must(sdk.api.POST('/v1/webhooks/{webhookId}/rotateSecret', { params: { path: { webhookId: subscription.id } } }));
    await newProperty();
    const [, next] = await r.waitFor(2, 15_000);
    for (const key of [rotated.signingSecret, rotated.publicKey!, signingSecret, publicKey!]) {
      expect(verifyWebhook(next.rawBody, next.headers, key)).toMatchObject({ eventName: 'property.create' });
    }
  });
});
