import { DynamicModule, Type } from '@nestjs/common';
import { MODULE_METADATA } from '../../src/platform/http/route-metadata';
import { declaredRoutes as controllerRoutes } from '../../src/platform/openapi/route-keys';

/** @nestjs/swagger's metadata keys (its constants are not exported). */
const EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';
const EXCLUDE_ENDPOINT = 'swagger/apiExcludeEndpoint';

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | { forwardRef: () => ModuleRef } | undefined;

/**
 * The routes (`GET /v1/properties/{propertyId}`) the controllers of a module tree declare, read
 * synchronously from their decorators: what a test file needs to declare one test per operation
 * before the app starts. Routes excluded from the document (@ApiExcludeController/Endpoint) are left out.
 */
export function declaredRoutes(roots: ModuleRef[]): string[] {
  const seen = new Set<unknown>();
  const routes = new Set<string>();
  const visit = (ref: ModuleRef): void => {
    if (!ref || ref instanceof Promise || seen.has(ref)) return;
    seen.add(ref);
    if ('forwardRef' in ref) return visit(ref.forwardRef());
    const dynamic = 'module' in ref ? (ref as DynamicModule) : undefined;
    const type = dynamic ? dynamic.module : (ref as Type);
    const meta = <T>(key: string): T[] => (Reflect.getMetadata(key, type) as T[] | undefined) ?? [];
    for (const controller of [...meta<Type>(MODULE_METADATA.CONTROLLERS), ...(dynamic?.controllers ?? [])]) addRoutes(controller, routes);
    for (const child of [...meta<ModuleRef>(MODULE_METADATA.IMPORTS), ...((dynamic?.imports ?? []) as ModuleRef[])]) visit(child);
  };
  roots.forEach(visit);
  return [...routes].sort();
}

function addRoutes(controller: Type, routes: Set<string>): void {
  if (Reflect.getMetadata(EXCLUDE_CONTROLLER, controller)?.[0]) return;
  for (const { route, handler } of controllerRoutes(controller)) {
    if (!Reflect.getMetadata(EXCLUDE_ENDPOINT, handler)?.disable) routes.add(route);
  }
}
