import { SUBSCRIPTION_DISABLED_MESSAGE } from './webhook-subscription.rules';
import { attemptRequests, attemptWasSent } from './attempt-requests.rules';

const source = {
  clientRequestId: 'idem-1',
  apiRequestId: 'req_1',
  targetAccountId: 'acct_1',
  createdAt: '2030-01-01T00:00:00.000Z',
  eventName: 'booking.create',
  results: [{ bookingId: 'bk_1' }],
};
const sent = (at: string) => ({ at, errorClass: null, errorMessage: null });

describe('attemptRequests', () => {
  const attempts = [
    sent('2030-01-01T00:00:01.250Z'),
    { at: '2030-01-01T00:00:05.000Z', errorClass: 'urlRule' as const, errorMessage: 'URL rule violation: private address' },
    { at: '2030-01-01T00:00:09.000Z', errorClass: 'timeout' as const, errorMessage: 'timed out after 10000 ms' },
  ];

  it('rebuilds each sent attempt: its envelope stamped with its time, its headers with its retry count, the signature not kept', () => {
    const [first, refused, third] = attemptRequests({
      deliveryId: 'whd_1',
      test: false,
      attempts,
      source,
      maxRetries: 5,
      version: '1.2.3',
      v1a: true,
    });
    expect(first!.body).toBe(
      '{"clientRequestId":"idem-1","apiRequestId":"req_1","targetAccountId":"acct_1","createdAt":"2030-01-01T00:00:00.000Z",' +
        '"eventName":"booking.create","results":[{"bookingId":"bk_1"}],"notifiedAt":"2030-01-01T00:00:01.250Z"}',
    );
    expect(first!.headers).toEqual([
      ['content-type', 'application/json'],
      ['user-agent', 'PropertyOps-Webhooks/1.2.3'],
      ['webhook-id', 'whd_1'],
      ['webhook-timestamp', '1893456001'],
      ['webhook-signature', 'v1,not kept v1a,not kept'],
      ['webhook-retry-count', '0'],
      ['webhook-max-retries', '5'],
    ]);
    expect(refused).toBeNull();
    expect(third!.headers).toContainEqual(['webhook-retry-count', '2']);
    expect(third!.body).toContain('"notifiedAt":"2030-01-01T00:00:09.000Z"}');
  });

  it('marks a test delivery as the engine does, and names v1 alone without v1a', () => {
    const [request] = attemptRequests({ deliveryId: 'whd_2', test: true, attempts, source, maxRetries: 0, version: '1', v1a: false });
    expect(request!.body.endsWith(',"test":true}')).toBe(true);
    expect(request!.headers).toContainEqual(['webhook-signature', 'v1,not kept']);
  });

  it('shows no request once the event is gone', () => {
    expect(attemptRequests({ deliveryId: 'whd_3', test: false, attempts, source: null, maxRetries: 5, version: '1', v1a: false })).toEqual([
      null,
      null,
      null,
    ]);
  });
});

describe('attemptWasSent', () => {
  it('is false for an attempt stopped by the URL check, an unresolvable name or a disabled subscription', () => {
    expect(attemptWasSent({ errorClass: 'urlRule', errorMessage: 'x' })).toBe(false);
    expect(attemptWasSent({ errorClass: 'dns', errorMessage: 'x' })).toBe(false);
    expect(attemptWasSent({ errorClass: null, errorMessage: SUBSCRIPTION_DISABLED_MESSAGE })).toBe(false);
    expect(attemptWasSent({ errorClass: 'refused', errorMessage: 'connection refused' })).toBe(true);
    expect(attemptWasSent({ errorClass: undefined, errorMessage: null })).toBe(true);
  });
});
