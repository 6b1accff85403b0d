import { DataSource } from 'typeorm';
import { newId } from '../../src/platform/ids/ids';
import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { WEBHOOK_IDS } from '../../src/modules/webhooks/webhooks.ids';

/**
 * Webhook URL rules (spec 4.8 rule 6) as production runs them: ALLOW_PRIVATE_URLS=false. Offline no
 * public name resolves, so only refusals are tested here; resolution is covered by the policy's unit tests.
 */
const REDIS_PREFIX = `pop-test-${process.env.TEST_RUN_ID}-webhooks-api-url`;

describe('webhook URL rules without ALLOW_PRIVATE_URLS', () => {
  let t: TestApp;
  let api: ApiClient;
  let accountId: string;
  beforeAll(async () => {
    t = await startApp({ REDIS_PREFIX, ALLOW_PRIVATE_URLS: 'false' });
    const account = await createAccount(t);
    accountId = account.accountId;
    api = clientFor(t, account);
  });
  afterAll(() => t.close());

  const cases: Array<[string, RegExp]> = [
    ['http://example.com/hook', /^Webhook url must use https$/],
    ['http://127.0.0.1:8080/hook', /^Webhook url must use https$/],
    ['https://127.0.0.1/x', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://[::1]/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://2130706433/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://0x7f.1/', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://169.254.169.254/latest/meta-data', /^Webhook url host must be a domain name, not an IP address$/],
    ['https://localhost/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://api.localhost/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://foo.internal/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://printer.local/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://metadata.google.internal/computeMetadata/v1', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://intranet/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://printer/', /^Webhook url host must be a fully qualified public domain name$/],
    ['https://does-not-exist.invalid/', /^Webhook url host is a local, internal or cloud-metadata name$/],
    ['https://does-not-exist.example.com/', /^Webhook url host does not resolve$/],
  ];

  it.each(cases)('refuses %s on create', async (url, detail) => {
    const res = await api.post('/v1/webhooks').send({ url, eventFilters: ['*'] });
    const problem = expectProblem(res, 400, 'invalidWebhookUrl', '/v1/webhooks');
    expect(problem.detail).toMatch(detail);
    expect(problem.errors).toEqual([{ pointer: '#/url', detail: problem.detail }]);
  });

  it('refuses the same urls on PATCH and keeps the stored one', async () => {
    // No public name resolves offline, so the subscription is planted directly.
    const id = newId(WEBHOOK_IDS.subscription);
    const url = 'https://hooks.example.com/in';
    await t.app
      .get(DataSource)
      .query(
        `INSERT INTO webhook_subscriptions (id, account_id, url, event_filters, max_retries, signing_secret) VALUES ($1, $2, $3, '{*}', 5, 'secret')`,
        [id, accountId, url],
      );
    for (const [bad, detail] of cases) {
      const problem = expectProblem(await api.patch(`/v1/webhooks/${id}`).send({ url: bad }), 400, 'invalidWebhookUrl');
      expect(problem.detail).toMatch(detail);
    }
    const [stored] = await t.app.get(DataSource).query(`SELECT url FROM webhook_subscriptions WHERE id = $1`, [id]);
    expect(stored.url).toBe(url);
  });
});
