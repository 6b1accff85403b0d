import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from './route-metadata';

/** A route handler as Nest mounts it. */
export interface NestRoute {
  /** Lower case (`get`), `_all` for @All. */
  method: string;
  /** Its template as Express gets it (`/v1/properties/:propertyId`). */
  path: string;
  handler: object;
  controller: object;
}

/** Every route of the app's controllers, read from Nest's own metadata (a controller's path joined with each handler's). */
export function nestRoutes(discovery: DiscoveryService): NestRoute[] {
  const routes: NestRoute[] = [];
  const scanner = new MetadataScanner();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    if (!controller) continue;
    const proto = controller.prototype as Record<string, object>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (requestMethod === undefined) continue;
      const method = requestMethod === RequestMethod.ALL ? '_all' : RequestMethod[requestMethod].toLowerCase();
      for (const ctrlPath of asList(Reflect.getMetadata(PATH_METADATA, controller)))
        for (const methodPath of asList(Reflect.getMetadata(PATH_METADATA, handler)))
          routes.push({ method, path: joinPaths(ctrlPath, methodPath), handler, controller });
    }
  }
  return routes;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : [typeof value === 'string' ? value : '']);

/** As Nest's RoutePathFactory joins a controller's and a handler's path (no global prefix, versions or module paths here). */
function joinPaths(...parts: string[]): string {
  return `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}
