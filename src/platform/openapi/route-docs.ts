import { Injectable, Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ROUTE_DOC, RouteDocOptions } from './route-doc';
import { declaredRoutes } from './route-keys';

/**
 * Each route's @RouteDoc by its name (`GET /v1/bookings/{bookingId}`), read from the app's controllers when
 * first asked: what reuses a route's documentation (the MCP tools' descriptions) reads it from the route.
 */
@Injectable()
export class RouteDocs {
  private docs?: Map<string, RouteDocOptions>;

  constructor(private readonly discovery: DiscoveryService) {}

  /** The route's documentation; a route that is not served, or not documented, is a programming error. */
  of(route: string): RouteDocOptions {
    this.docs ??= this.read();
    const doc = this.docs.get(route);
    if (!doc) throw new Error(`no documented route ${route}`);
    return doc;
  }

  private read(): Map<string, RouteDocOptions> {
    const docs = new Map<string, RouteDocOptions>();
    for (const wrapper of this.discovery.getControllers()) {
      if (!wrapper.metatype) continue;
      for (const { route, handler } of declaredRoutes(wrapper.metatype as Type)) {
        const doc = Reflect.getMetadata(ROUTE_DOC, handler) as RouteDocOptions | undefined;
        if (doc) docs.set(route, doc);
      }
    }
    return docs;
  }
}
