import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { ReadShape } from './read-shape';

/**
 * What the code of a route cannot say about it, declared on its handler next to the route:
 *
 *   @Get(':bookingId')
 *   @RouteDoc({ summary: 'Get a booking', response: ok(BOOKING_SHAPE, 'The booking.'), problems: [404], example: { params: … } })
 *
 * The OpenAPI document (src/openapi/openapi.document.ts) takes the path, parameters, body and query
 * schemas, success status, @Public, @Idempotent and @MultipartFile from the code, and the rest from
 * here. The example request must work against a fresh account: the contract test sends it
 * (test/e2e/openapi-contract.e2e-spec.ts) after swapping the EXAMPLE_IDS placeholders for real ids.
 */
export type ResponseDoc =
  | { shape: ReadShape; page?: boolean; description: string }
  | { none: true; description: string }
  | { binary: string; description: string }
  | { json: true; description: string };

export interface ExampleRequest {
  params?: Record<string, string>;
  /** Typed as the parameter is (integers as numbers). */
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

export interface RouteDocOptions {
  summary: string;
  description?: string;
  response: ResponseDoc;
  /** Problem statuses beyond 400, 401, 403 and 429 (every authenticated route can answer those). */
  problems?: number[];
  example?: ExampleRequest;
  /** A @MultipartFile route whose body needs the file or one of these fields (a JSON body: one of them). */
  fileOr?: string[];
}

export const ROUTE_DOC = 'openapi:routeDoc';

/** The route's documentation: summary and description through @nestjs/swagger's ApiOperation, the rest as metadata. */
export function RouteDoc(doc: RouteDocOptions): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: doc.summary, ...(doc.description ? { description: doc.description } : {}) }),
    SetMetadata(ROUTE_DOC, doc),
  );
}

export const ok = <T>(shape: ReadShape<T>, description: string): ResponseDoc => ({ shape, description });
export const page = <T>(shape: ReadShape<T>, description: string): ResponseDoc => ({ shape, page: true, description });
export const none = (description = 'Done; no body.'): ResponseDoc => ({ none: true, description });
