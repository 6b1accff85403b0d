import {
  attemptResult,
  capSnippet,
  isSuccessStatus,
  networkErrorClass,
  networkErrorMessage,
  responseErrorMessage,
  urlRuleErrorClass,
} from './webhook-delivery.rules';
import { whyUnclaimed } from '../claims/webhook-claim.rules';
import { buildEnvelope, deliveryHeaders, envelopeBody, eventEnvelopeSource, testEnvelopeSource } from '../../webhook-envelope.rules';
import { SUBSCRIPTION_DISABLED_MESSAGE } from '../../subscriptions/webhook-subscription.rules';
import { SNIPPET_RETENTION_MS, snippetExpiry } from '../../webhook-retention.rules';
import { signPayload } from '../../webhook-signer.rules';

const source = {
  results: [{ id: 'prop_1' }],
  eventName: 'property.create',
  createdAt: '2026-01-01T00:00:00.000Z',
  targetAccountId: 'acc_1',
  apiRequestId: 'req_1',
  clientRequestId: 'idem-1',
};
const notifiedAt = new Date('2026-01-01T00:00:01.500Z');

describe('buildEnvelope', () => {
  it('lists the spec 6.1 keys in order, notifiedAt last, no test flag on real events', () => {
    const body = JSON.stringify(buildEnvelope(source, notifiedAt, { test: false }));
    expect(body).toBe(
      '{"clientRequestId":"idem-1","apiRequestId":"req_1","targetAccountId":"acc_1","createdAt":"2026-01-01T00:00:00.000Z",' +
        '"eventName":"property.create","results":[{"id":"prop_1"}],"notifiedAt":"2026-01-01T00:00:01.500Z"}',
    );
  });

  it('adds test: true after notifiedAt on synthetic deliveries', () => {
    const envelope = buildEnvelope(source, notifiedAt, { test: true });
    expect(Object.keys(envelope)).toEqual([
      'clientRequestId',
      'apiRequestId',
      'targetAccountId',
      'createdAt',
      'eventName',
      'results',
      'notifiedAt',
      'test',
    ]);
    expect(envelope.test).toBe(true);
  });

  it('ignores extra keys of the source', () => {
    const envelope = buildEnvelope({ ...source, secret: 'x' } as typeof source, notifiedAt, { test: false });
    expect(Object.keys(envelope)).not.toContain('secret');
  });
});

describe('envelopeBody', () => {
  it('is JSON.stringify(buildEnvelope(…)) byte for byte, with and without the test flag, for each attempt of one source', () => {
    const tricky = { ...source, results: [{ note: ',"notifiedAt":"x"}', emoji: '\u{1F3E0}' }] };
    for (const at of [notifiedAt, new Date('2027-06-30T23:59:59.999Z')]) {
      for (const test of [false, true]) {
        for (const from of [source, tricky])
          expect(envelopeBody(from, at, { test })).toBe(JSON.stringify(buildEnvelope(from, at, { test })));
      }
    }
  });

  it('serializes each source on its own (sources are told apart by object, not by content)', () => {
    const other = { ...source, results: [{ id: 'prop_2' }] };
    expect(envelopeBody(source, notifiedAt, { test: false })).toContain('prop_1');
    expect(envelopeBody(other, notifiedAt, { test: false })).toContain('prop_2');
  });
});

describe('deliveryHeaders', () => {
  const input = {
    deliveryId: 'whd_1',
    accountId: 'acct_01KB0000000000000000000000',
    body: '{"a":1}',
    now: new Date('2026-01-01T00:00:01.999Z'),
    secrets: ['new', 'old'],
    retryCount: 2,
    maxRetries: 5,
    userAgent: 'PropertyOps-Webhooks/1.2.3',
  };

  it('sends exactly the spec headers plus user-agent, numbers as decimal strings, the timestamp in whole seconds', () => {
    expect(deliveryHeaders(input)).toEqual({
      'content-type': 'application/json',
      'user-agent': 'PropertyOps-Webhooks/1.2.3',
      'webhook-id': 'whd_1',
      'webhook-timestamp': '1767225601',
      'webhook-signature': signPayload({ deliveryId: 'whd_1', timestamp: 1767225601, body: '{"a":1}', secrets: ['new', 'old'] }),
      'webhook-retry-count': '2',
      'webhook-max-retries': '5',
    });
  });

  it("marks a sandbox's deliveries x-test-mode: true, and only those", () => {
    expect(deliveryHeaders({ ...input, accountId: 'sbx_01KB0000000000000000000000' })).toEqual({
      ...deliveryHeaders(input),
      'x-test-mode': 'true',
    });
    expect(deliveryHeaders(input)).not.toHaveProperty('x-test-mode');
  });

  it('signs with every secret given, in order', () => {
    const [first, second] = deliveryHeaders(input)['webhook-signature'].split(' ');
    expect(first).toBe(deliveryHeaders({ ...input, secrets: ['new'] })['webhook-signature']);
    expect(second).toBe(deliveryHeaders({ ...input, secrets: ['old'] })['webhook-signature']);
  });

  it('sends no webhook-signature without a secret (the legacy webhook), the other headers unchanged', () => {
    const signed = deliveryHeaders(input);
    const { ['webhook-signature']: _signature, ...rest } = signed;
    expect(deliveryHeaders({ ...input, secrets: [] })).toEqual(rest);
  });
});

describe('eventEnvelopeSource', () => {
  it('maps the event row: its account is the target, createdAt as ISO 8601 UTC, results as stored', () => {
    const event = {
      id: 'evt_1',
      accountId: 'acc_1',
      eventName: 'property.create',
      clientRequestId: 'idem-1',
      apiRequestId: 'req_1',
      createdAt: new Date('2026-01-01T00:00:00Z'),
      results: [{ id: 'prop_1' }],
    };
    expect(eventEnvelopeSource(event)).toEqual(source);
  });
});

describe('testEnvelopeSource', () => {
  const delivery = { id: 'whd_1', accountId: 'acc_1', eventName: 'jobRequest.completed', createdAt: new Date('2026-02-02T00:00:00Z') };
  it('takes the stored payload', () => {
    const payload = {
      clientRequestId: 'c',
      apiRequestId: 'a',
      createdAt: '2026-02-02T00:00:00.100Z',
      eventName: 'jobRequest.completed',
      results: [{ x: 1 }],
    };
    expect(testEnvelopeSource(payload, delivery)).toEqual({
      clientRequestId: 'c',
      apiRequestId: 'a',
      targetAccountId: 'acc_1',
      createdAt: '2026-02-02T00:00:00.100Z',
      eventName: 'jobRequest.completed',
      results: [{ x: 1 }],
    });
  });
  it('falls back to the delivery row for missing fields; account and event name always come from the row', () => {
    expect(testEnvelopeSource({ targetAccountId: 'acc_other', eventName: 'x.y', results: 'nope' }, delivery)).toEqual({
      clientRequestId: 'whd_1',
      apiRequestId: 'whd_1',
      targetAccountId: 'acc_1',
      createdAt: '2026-02-02T00:00:00.000Z',
      eventName: 'jobRequest.completed',
      results: [],
    });
    expect(testEnvelopeSource(null, delivery).results).toEqual([]);
  });
});

describe('capSnippet', () => {
  it('keeps short bodies whole', () => {
    expect(capSnippet(Buffer.from('ok'))).toBe('ok');
    expect(capSnippet(Buffer.alloc(0))).toBe('');
    expect(capSnippet(Buffer.from('a'.repeat(1024)))).toHaveLength(1024);
  });
  it('cuts at 1024 bytes', () => {
    expect(capSnippet(Buffer.from('a'.repeat(1025)))).toBe('a'.repeat(1024));
  });
  it('never splits a multi-byte character', () => {
    // 1023 ASCII bytes then '€' (3 bytes): the cut falls inside it, so it is dropped whole.
    const text = `${'a'.repeat(1023)}€tail`;
    expect(capSnippet(Buffer.from(text))).toBe('a'.repeat(1023));
    // 1021 + '€' = 1024 bytes exactly: kept.
    expect(capSnippet(Buffer.from(`${'a'.repeat(1021)}€€`))).toBe(`${'a'.repeat(1021)}€`);
    // 4-byte emoji straddling the cut.
    expect(capSnippet(Buffer.from(`${'a'.repeat(1022)}😀`))).toBe('a'.repeat(1022));
    expect(capSnippet(Buffer.from('😀😀'), 5)).toBe('😀');
  });
});

describe('isSuccessStatus', () => {
  it('accepts 200-299 only', () => {
    expect([199, 200, 201, 204, 299, 300, 301, 304, 400, 500].map(isSuccessStatus)).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('attempt error messages', () => {
  it('2xx has none; 3xx says the redirect was not followed; others name the status', () => {
    expect(responseErrorMessage(204, undefined)).toBeNull();
    expect(responseErrorMessage(301, 'https://elsewhere.example/')).toBe('redirect not followed (HTTP 301 to https://elsewhere.example/)');
    expect(responseErrorMessage(307, undefined)).toBe('redirect not followed (HTTP 307)');
    expect(responseErrorMessage(500, undefined)).toBe('non-2xx response (HTTP 500)');
    expect(responseErrorMessage(199, undefined)).toBe('non-2xx response (HTTP 199)');
  });
  it('network failures name the time-out or the error code', () => {
    expect(networkErrorMessage(new Error('aborted'), true, 500)).toBe('timed out after 500 ms');
    expect(networkErrorMessage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), false, 500)).toBe(
      'network error: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(networkErrorMessage(new Error('other side closed'), false, 500)).toBe('network error: other side closed');
    // undici's headers or body time-out (the same deadline) firing just before the attempt's own signal.
    const headersTimeout = Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(networkErrorMessage(headersTimeout, false, 1000)).toBe('timed out after 1000 ms');
    expect(networkErrorMessage(new TypeError('fetch failed', { cause: headersTimeout }), false, 1000)).toBe('timed out after 1000 ms');
  });
});

describe('networkErrorClass', () => {
  const plain = { timedOut: false, duringTlsHandshake: false };
  const err = (code: string) => Object.assign(new Error(code), { code });

  it('classifies by the codes of the error and its causes', () => {
    expect(networkErrorClass(new TypeError('fetch failed', { cause: err('ECONNREFUSED') }), plain)).toBe('refused');
    expect(networkErrorClass(err('ENOTFOUND'), plain)).toBe('dns');
    expect(networkErrorClass(err('EAI_AGAIN'), plain)).toBe('dns');
    expect(networkErrorClass(err('UND_ERR_CONNECT_TIMEOUT'), plain)).toBe('timeout');
    expect(networkErrorClass(err('UND_ERR_HEADERS_OVERFLOW'), plain)).toBe('tooLarge');
    expect(networkErrorClass(err('ERR_SSL_WRONG_VERSION_NUMBER'), plain)).toBe('tls');
    expect(networkErrorClass(err('DEPTH_ZERO_SELF_SIGNED_CERT'), plain)).toBe('tls');
    expect(networkErrorClass(err('ERR_TLS_CERT_ALTNAME_INVALID'), plain)).toBe('tls');
    expect(networkErrorClass(err('ECONNRESET'), plain)).toBe('network');
  });

  it('looks into happy-eyeballs aggregates', () => {
    expect(networkErrorClass(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')]), plain)).toBe('refused');
  });

  it('says timeout once the deadline passed, whatever the error, and tls for a failure mid-handshake', () => {
    expect(networkErrorClass(err('ECONNRESET'), { timedOut: true, duringTlsHandshake: false })).toBe('timeout');
    expect(networkErrorClass(err('ECONNRESET'), { timedOut: false, duringTlsHandshake: true })).toBe('tls');
  });
});

describe('urlRuleErrorClass', () => {
  it('is dns for a name that does not resolve, urlRule otherwise', () => {
    expect(urlRuleErrorClass('unresolvable')).toBe('dns');
    expect(urlRuleErrorClass('non_public_address')).toBe('urlRule');
  });
});

describe('snippetExpiry', () => {
  it('is 7 days after the attempt when a snippet was kept, null otherwise', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(snippetExpiry({ at, responseSnippet: 'ok' })).toBe(new Date(Date.parse(at) + SNIPPET_RETENTION_MS).toISOString());
    expect(snippetExpiry({ at, responseSnippet: '' })).toBeNull();
    expect(snippetExpiry({ at, responseSnippet: null })).toBeNull();
  });
});

describe('whyUnclaimed', () => {
  it('tells a deleted, finished, stale or claimed attempt apart', () => {
    expect(whyUnclaimed(undefined, 0)).toBe('missing');
    expect(whyUnclaimed({ status: 'delivered', attemptCount: 1 }, 0)).toBe('finished');
    expect(whyUnclaimed({ status: 'pending', attemptCount: 2 }, 1)).toBe('stale');
    expect(whyUnclaimed({ status: 'pending', attemptCount: 1 }, 1)).toBe('in_flight');
  });
});

describe('attemptResult', () => {
  const report = (outcome: 'ok' | 'failed' | 'fatal' | 'lost' | 'gone', responseCode: number | null, errorMessage: string | null) => ({
    outcome,
    responseCode,
    responseSnippet: null,
    errorMessage,
  });

  it('names each way an attempt ends for the metrics and logs', () => {
    expect(attemptResult(report('ok', 204, null))).toBe('success');
    expect(attemptResult(report('lost', null, 'outcome unknown'))).toBe('lost');
    expect(attemptResult(report('fatal', null, SUBSCRIPTION_DISABLED_MESSAGE))).toBe('disabled');
    expect(attemptResult(report('fatal', null, 'url refused: private address'))).toBe('url_rule');
    expect(attemptResult(report('failed', 500, 'HTTP 500'))).toBe('http_error');
    expect(attemptResult(report('gone', 410, 'HTTP 410'))).toBe('http_error');
    expect(attemptResult(report('failed', null, 'timed out after 10000 ms'))).toBe('timeout');
    expect(attemptResult(report('failed', null, 'network error: ECONNREFUSED'))).toBe('network_error');
  });
});
