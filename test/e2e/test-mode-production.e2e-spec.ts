import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ApiProcess, spawnApiProcess } from '../support/api-process';
import { cliJson, runCli } from '../support/cli';
import { exchangeLink, setCookie } from '../support/console';
import { pageText } from '../support/console-pages';
import { ANN, validJob } from '../support/job-requests';
import { expectProblem } from '../support/problem';
import { validProperty } from '../support/properties';
import { freePort } from '../support/private-services';

/**
 * Test mode in a production-mode process (the BUILT API, NODE_ENV=production, where TEST_HELPERS_ENABLED cannot be
 * on) and through the BUILT admin CLI: `keys:issue --test` and `sandbox:reset`. The provider-side helpers drive a
 * sandbox job to completed with a test key; a live key gets the 404 of a route that does not exist.
 */
describe('test mode in production (built API and CLI)', () => {
  let api: ApiProcess;
  let accountId: string;
  let liveKey: string;
  let testKey: string;

  beforeAll(async () => {
    api = await spawnApiProcess(await freePort(), {
      NODE_ENV: 'production',
      CURSOR_SECRET: randomBytes(24).toString('base64url'),
      SECRETS_ENCRYPTION_KEY: `prod1:${randomBytes(32).toString('base64')}`,
      ALLOW_PRIVATE_URLS: 'false',
      TEST_HELPERS_ENABLED: 'false',
    });
    ({ accountId, apiKey: liveKey } = await cliJson<{ accountId: string; apiKey: string }>([
      'accounts:create',
      '--name',
      'Prod test mode',
    ]));
    const issued = await cliJson<{ apiKeyId: string; apiKey: string }>(['keys:issue', '--account', accountId, '--test']);
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'apiKeyId']);
    expect(issued.apiKey).toMatch(/^popk_test_/);
    testKey = issued.apiKey;
  });
  afterAll(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
  });

  const as = (key: string) => ({
    get: (path: string) => request(api.url).get(path).set('x-api-key', key),
    post: (path: string, body: object = {}) => request(api.url).post(path).set('x-api-key', key).send(body),
  });

  it('drives a sandbox job to completed through the helpers with a test key; a live key gets 404 there', async () => {
    const test = as(testKey);
    const property = (await test.post('/v1/properties', validProperty()).expect(201)).body;
    const job = (await test.post('/v1/jobRequests', validJob(property.propertyId)).expect(201)).body;
    const helper = (action: string, body: object = {}) => test.post(`/v1/testHelpers/jobRequests/${job.jobRequestId}/${action}`, body);
    const accepted = await helper('accept', { email: ANN }).expect(200);
    expect(accepted.headers['x-test-mode']).toBe('true');
    await helper('start').expect(200);
    expect((await helper('complete').expect(200)).body.status).toBe(7);

    const live = as(liveKey);
    const liveProperty = (await live.post('/v1/properties', validProperty()).expect(201)).body;
    const liveJob = (await live.post('/v1/jobRequests', validJob(liveProperty.propertyId)).expect(201)).body;
    for (const id of [liveJob.jobRequestId, job.jobRequestId]) {
      const res = await live.post(`/v1/testHelpers/jobRequests/${id}/accept`, { email: ANN });
      expectProblem(res, 404, 'notFound');
      expect(res.body.detail).toMatch(/^No route matches POST/);
    }
    expect((await live.get(`/v1/jobRequests/${liveJob.jobRequestId}`).expect(200)).body.status).toBe(1);
  });

  it("the sandbox's webhook subscriptions follow production's URL rules (no private address)", async () => {
    const refused = await as(testKey).post('/v1/webhooks', { url: 'https://127.0.0.1/hooks', eventFilters: ['*'] });
    expect(refused.status).toBe(400);
    expect(refused.headers['x-test-mode']).toBe('true');
  });

  it('the console in production: no CLI named where it sends people to the web app; a webhook URL is https on a public name', async () => {
    const never = pageText((await request(api.url).get('/console').expect(401)).text);
    expect(never).toContain('open it from the web app');
    expect(never).not.toContain('npm run');
    const { url } = await cliJson<{ url: string }>(['console:link', '--account', accountId]);
    const cookie = setCookie(await exchangeLink(api.url, url), 'pop_console')!.pair;
    const webhooks = pageText((await request(api.url).get('/console/webhooks').set('Cookie', cookie).expect(200)).text);
    expect(webhooks).toContain('Endpoint URL (https, a public domain name)');
    expect(webhooks).not.toContain('ALLOW_PRIVATE_URLS');
  });

  it('sandbox:reset prints one JSON line of what it deleted; live data and the test key stay', async () => {
    const test = as(testKey);
    const live = as(liveKey);
    const liveProperty = (await live.post('/v1/properties', validProperty()).expect(201)).body;
    await test.post('/v1/properties', validProperty()).expect(201);
    const result = await runCli(['sandbox:reset', '--account', accountId]);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const reset = JSON.parse(result.stdout);
    expect(reset).toMatchObject({ accountId, sandboxAccountId: expect.stringMatching(/^sbx_/) });
    expect(reset.deleted.properties).toBeGreaterThanOrEqual(2);
    expect(reset.deleted.job_requests).toBeGreaterThanOrEqual(1);
    expect((await test.get('/v1/properties').expect(200)).body.data).toEqual([]);
    await live.get(`/v1/properties/${liveProperty.propertyId}`).expect(200);
  });

  it('the CLI refuses --legacy with --test, and an unknown account', async () => {
    const both = await runCli(['keys:issue', '--account', accountId, '--test', '--legacy']);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/--legacy and --test/);
    const unknown = await runCli(['sandbox:reset', '--account', 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(unknown.code).toBe(1);
  });
});
