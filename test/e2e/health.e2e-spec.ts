import { startApp, TestApp } from '../support/app';

describe('GET /v1/health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers without a key, with the package version', async () => {
    const res = await t.http.get('/v1/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', version: require('../../package.json').version, checks: { database: 'up', redis: 'up' } });
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
