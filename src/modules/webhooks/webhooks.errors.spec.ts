import { UrlPolicyError } from '../../platform/net/url-policy.rules';
import { DuplicateWebhookUrlError, WebhookUrlError } from './webhooks.errors';

describe('webhook errors', () => {
  it('maps a URL policy violation to a 400 whose detail starts with "Webhook url", pointing at #/url', () => {
    const error = WebhookUrlError.from(new UrlPolicyError('scheme', 'must use https'));
    expect(error.kind).toBe('invalid');
    expect(error.code).toBe('invalidWebhookUrl');
    expect(error.message).toBe('Webhook url must use https');
    expect(error.violation).toBe('scheme');
    expect(error.extras).toEqual({ errors: [{ pointer: '#/url', detail: 'Webhook url must use https' }] });
  });

  it('carries existingId on a duplicate url, when known', () => {
    const known = new DuplicateWebhookUrlError('sub_1');
    expect(known.kind).toBe('conflict');
    expect(known.code).toBe('conflict');
    expect(known.extras).toEqual({ existingId: 'sub_1' });
    expect(new DuplicateWebhookUrlError(undefined).extras).toEqual({});
  });
});
