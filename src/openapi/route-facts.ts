import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { IdempotencyInterceptor } from '../platform/http/idempotency.interceptor';
import { ACCEPTS_MULTIPART } from '../platform/http/multipart';
import { INTERCEPTORS_METADATA, ROUTE_ARGS_METADATA, RouteParamtypes } from '../platform/http/route-metadata';
import { IS_PUBLIC } from '../platform/http/public.decorator';
import { BEARER_KEY_ACCEPTED } from '../modules/auth/bearer-key.decorator';
import { ROUTE_DOC, RouteDocOptions } from '../platform/openapi/route-doc';

type DtoClass = new () => object;

/** What the document reads from each handler's own metadata, by operationId (`Controller_method`). */
export interface RouteFacts {
  query?: DtoClass;
  body?: DtoClass;
  isPublic: boolean;
  /** @BearerKeyAccepted: the key may also come as Authorization: Bearer (the MCP endpoint). */
  bearer?: boolean;
  idempotent: boolean;
  /** The multipart file part's name, for routes marked @MultipartFile(name). */
  multipartFile?: string;
  /** The handler's @RouteDoc: its response, problems and example. */
  doc?: RouteDocOptions;
}

export const operationIdOf = (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`;

export function routeFacts(discovery: DiscoveryService, scanner: MetadataScanner): Map<string, RouteFacts> {
  const facts = new Map<string, RouteFacts>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    if (!controller) continue;
    const proto = controller.prototype as Record<string, unknown>;
    for (const method of scanner.getAllMethodNames(proto)) {
      const handler = proto[method] as object;
      const args: Record<string, { index: number }> = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {};
      const types: unknown[] = Reflect.getMetadata('design:paramtypes', proto, method) ?? [];
      const argOf = (kind: RouteParamtypes) => {
        const key = Object.keys(args).find((k) => Number(k.split(':')[0]) === kind);
        return key === undefined ? undefined : (types[args[key].index] as DtoClass);
      };
      const interceptors: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? [];
      const multipart: unknown = Reflect.getMetadata(ACCEPTS_MULTIPART, handler);
      facts.set(operationIdOf(controller.name, method), {
        query: argOf(RouteParamtypes.QUERY),
        body: argOf(RouteParamtypes.BODY),
        isPublic: Reflect.getMetadata(IS_PUBLIC, handler) === true || Reflect.getMetadata(IS_PUBLIC, controller) === true,
        bearer: Reflect.getMetadata(BEARER_KEY_ACCEPTED, handler) === true,
        idempotent: interceptors.includes(IdempotencyInterceptor),
        multipartFile: typeof multipart === 'string' ? multipart : undefined,
        doc: Reflect.getMetadata(ROUTE_DOC, handler) as RouteDocOptions | undefined,
      });
    }
  }
  return facts;
}
