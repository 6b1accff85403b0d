import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '../http/route-metadata';

/** One route a controller declares: `GET /v1/bookings/{bookingId}` and the handler that serves it. */
export interface DeclaredRoute {
  route: string;
  handler: object;
}

const paths = (value: string | string[] | undefined): string[] => (Array.isArray(value) ? value : [value ?? '']);

/** `GET`, `v1/bookings`, `:bookingId` → `GET /v1/bookings/{bookingId}`: how the document and the MCP tools name a route. */
export function routeKey(method: RequestMethod, controllerPath: string, handlerPath: string): string {
  const full = `/${[controllerPath, handlerPath].join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  return `${RequestMethod[method]} ${full.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/** Every route of a controller, read from its decorators (Nest's route metadata). */
export function declaredRoutes(controller: Type): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  const proto = controller.prototype as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    // The descriptor's value, not proto[name]: a getter would run on the prototype.
    const handler: unknown = Object.getOwnPropertyDescriptor(proto, name)?.value;
    if (name === 'constructor' || typeof handler !== 'function') continue;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    if (method === undefined) continue;
    for (const prefix of paths(Reflect.getMetadata(PATH_METADATA, controller)))
      for (const path of paths(Reflect.getMetadata(PATH_METADATA, handler)))
        routes.push({ route: routeKey(method, prefix, path), handler });
  }
  return routes;
}
