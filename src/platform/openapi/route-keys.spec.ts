import { Controller, Delete, Get, Post, RequestMethod } from '@nestjs/common';
import { declaredRoutes, routeKey } from './route-keys';

@Controller('v1/things')
class ThingsController {
  @Get()
  list(): void {}

  @Get(':thingId')
  get(): void {}

  @Post([':thingId/cancel', ':thingId/stop/'])
  cancel(): void {}

  @Delete(':thingId')
  remove(): void {}

  helper(): void {}

  get computed(): string {
    throw new Error('a getter is never run');
  }
}

describe('route keys', () => {
  it('names a route as the document does: method, full path, path ids in braces', () => {
    expect(routeKey(RequestMethod.GET, 'v1/things', ':thingId/parts/:partId')).toBe('GET /v1/things/{thingId}/parts/{partId}');
    expect(routeKey(RequestMethod.POST, '/v1/things/', '')).toBe('POST /v1/things');
  });

  it("lists a controller's routes with their handlers, every path of each", () => {
    const routes = declaredRoutes(ThingsController);
    expect(routes.map((r) => r.route)).toEqual([
      'GET /v1/things',
      'GET /v1/things/{thingId}',
      'POST /v1/things/{thingId}/cancel',
      'POST /v1/things/{thingId}/stop',
      'DELETE /v1/things/{thingId}',
    ]);
    expect(routes[1].handler).toBe(ThingsController.prototype.get);
  });
});
