import type { IncomingMessage } from 'node:http';
import { routeTemplate } from './request-context';

const requestOn = (route?: { path: string; methods: object }) => ({ route }) as unknown as IncomingMessage;

describe('routeTemplate', () => {
  it("is the controller route's template, mounted for its one method", () => {
    expect(routeTemplate(requestOn({ path: '/v1/properties/:propertyId', methods: { get: true } }))).toBe('/v1/properties/:propertyId');
  });

  it("is undefined when only a middleware's catch-all route (every method) ran, or no route at all", () => {
    expect(routeTemplate(requestOn({ path: '/{*path}', methods: { get: true, post: true, delete: true } }))).toBeUndefined();
    expect(routeTemplate(requestOn())).toBeUndefined();
  });
});
