import request from 'supertest';
import { clientFor, createAccount, startApp, TestApp } from '../support/app';
import { ApiKeyGuard } from '../../src/modules/auth/api-key.guard';
import { RoutePlans } from '../../src/modules/auth/route-plans';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/**
 * The entry middleware checks keys for the routes RoutePlans finds (before the body is read and before
 * Nest's pipeline); a route it cannot plan falls back to ApiKeyGuard, which is correct but slower. So
 * every /v1 and legacy route must be planned, and with the flags its handler declares.
 */
describe('route plans', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  it('plan every /v1, /legacy and /console route Express serves, the first match winning as in Express', () => {
    const plans = t.app.get(RoutePlans);
    const stack = (t.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } }).router.stack;
    const ours = stack.flatMap((layer) => (layer.route && /^\/(v1|legacy|console)\b/.test(layer.route.path) ? [layer.route] : []));
    expect(ours.length).toBeGreaterThan(50);
    for (const route of ours) {
      const method = Object.keys(route.methods)[0].toUpperCase();
      const url = route.path.replace(/:\w+/g, 'x_1');
      const found = plans.find({ method, url: `${url}?q=1` } as never);
      expect({ route: `${method} ${route.path}`, planned: found?.route.path }).toEqual({
        route: `${method} ${route.path}`,
        planned: stack.find((l) => l.route?.methods[method.toLowerCase()] && matches(l.route.path, url))?.route?.path,
      });
    }
    const plan = (method: string, url: string) => plans.find({ method, url } as never)?.plan;
    expect(plan('GET', '/v1/health')).toEqual({ isPublic: true, bearer: false, legacy: false, testModeOnly: false });
    expect(plan('HEAD', '/V1/Properties/prop_1/')).toEqual({ isPublic: false, bearer: false, legacy: false, testModeOnly: false });
    expect(plan('POST', '/v1/mcp')).toEqual({ isPublic: false, bearer: true, legacy: false, testModeOnly: false });
    expect(plan('GET', '/legacy/webhook')).toEqual({ isPublic: false, bearer: false, legacy: true, testModeOnly: false });
    expect(plan('GET', '/v1/nothing-here')).toBeUndefined();
    expect(plan('OPTIONS', '/v1/properties')).toBeUndefined();
  });

  it('refuse a missing key in the entry middleware, before the body is read and before Nest’s guards run', async () => {
    const guard = jest.spyOn(ApiKeyGuard.prototype, 'canActivate');
    try {
      const refused = await request(t.app.getHttpServer())
        .post('/v1/properties')
        .set('content-type', 'application/json')
        .send('{not json')
        .expect(401);
      expect(refused.body).toMatchObject({ code: 'unauthorized', instance: '/v1/properties', requestId: refused.headers['x-request-id'] });
      expect(guard).not.toHaveBeenCalled();
      // A planned route that passes the entry's check still meets the guard, which lets it through.
      await clientFor(t, await createAccount(t))
        .get('/v1/properties')
        .expect(200);
      expect(guard).toHaveBeenCalledTimes(1);
      expect(await guard.mock.results[0].value).toBe(true);
    } finally {
      guard.mockRestore();
    }
  });
});

/** A template's match, for the test's own expectation (parameters are single segments). */
function matches(template: string, path: string): boolean {
  return new RegExp(`^${template.replace(/:\w+/g, '[^/]+')}/?$`, 'i').test(path);
}
