import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { ReadShape } from './read-shape';

/**
 * What the code of a route cannot say about it, declared on its handler next to the route:
 *
 *   @Get(':bookingId')
 *   @RouteDoc({ summary: 'Get a booking', response: ok(BOOKING_SHAPE, 'The booking.') })
 *
 * The OpenAPI document (src/openapi/openapi.document.ts) takes the path, parameters, body and query
 * schemas, success status, @Public, @Idempotent and @MultipartFile from the code, and the rest from
 * here. A route with a path id answers 404 and its example uses the declared example id of the
 * id's name, both without saying so here. The example request must work against a fresh account: the
 * contract test sends it (test/e2e/openapi-contract.e2e-spec.ts) after swapping the placeholders for real ids.
 */
export type ResponseDoc =
  | { shape: ReadShape; page?: boolean; description: string }
  | { none: true; description: string }
  | { binary: string; description: string }
  | { json: true; description: string }
  /** A route that only ever refuses (an MCP method the endpoint does not serve): its one answer is this problem. */
  | { refused: number; description: string };

export interface ExampleRequest {
  /** Path ids whose example is not the declared example id of their name (`exampleIds` in the module declarations). */
  params?: Record<string, string>;
  /** Typed as the parameter is (integers as numbers). */
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

export interface RouteDocOptions {
  summary: string;
  description?: string;
  response: ResponseDoc;
  /** Problem statuses beyond 400, 401, 403 and 429 (every authenticated route can answer those) and a path id's 404. */
  problems?: number[];
  example?: ExampleRequest;
  /** A @MultipartFile route whose body needs the file or one of these fields (a JSON body: one of them). */
  fileOr?: string[];
  /** Answers test keys only (docs/test-mode.md; live keys where TEST_HELPERS_ENABLED=true): `x-test-mode-only: true`. */
  testModeOnly?: boolean;
}

export const ROUTE_DOC = 'openapi:routeDoc';

/**
 * The route's documentation: summary and description through @nestjs/swagger's ApiOperation, the rest as
 * metadata. A route documented as answering no body (`none()`) answers 204: the status is set here, so the
 * route and its document cannot disagree.
 */
export function RouteDoc(doc: RouteDocOptions): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: doc.summary, ...(doc.description ? { description: doc.description } : {}) }),
    SetMetadata(ROUTE_DOC, doc),
    ...('none' in doc.response ? [HttpCode(204)] : []),
  );
}

export const ok = <T>(shape: ReadShape<T>, description: string): ResponseDoc => ({ shape, description });
export const page = <T>(shape: ReadShape<T>, description: string): ResponseDoc => ({ shape, page: true, description });
/** A stored image's bytes (platform/http/stored-image.ts). */
export const image = (): ResponseDoc => ({ binary: 'image/*', description: 'The image bytes, with their content type.' });
/** Always this problem status (405 for a method the resource does not serve): the route has no success answer. */
export const refused = (status: number, description: string): ResponseDoc => ({ refused: status, description });
/** No body: the route answers 204 (RouteDoc sets it). */
export const none = (description = 'Done; no body.'): ResponseDoc => ({ none: true, description });
