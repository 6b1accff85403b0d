import { DECLARED } from '../modules/modules';
import { arrayOf, bool, int, orNull, ref, shapeOf, str, uri, type JsonSchema } from '../platform/openapi/json-schema';
import type { ReadShape } from '../platform/openapi/read-shape';

/** The problem document every error answers with (platform/http's problem shape, RFC 9457). */
const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem document (application/problem+json).',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
  properties: {
    type: { ...uri, description: '{ERRORS_BASE_URL}/<code>' },
    title: str,
    status: int,
    detail: str,
    instance: { type: 'string', description: 'the request path' },
    code: { type: 'string', description: 'machine-readable: see the response descriptions for the codes of each status' },
    requestId: str,
    errors: arrayOf(
      shapeOf<{ pointer: string; detail: string }>('One field that failed.', {
        pointer: { type: 'string', description: 'JSON Pointer to the field, e.g. #/taskGroups/0/tasks/1/colour' },
        detail: str,
      }),
    ),
    existingId: { type: 'string', description: 'the subscription or booking that already exists (409 conflict)' },
  },
};

/** A list response: the collection envelope of spec 1 (General conventions 6) around one read shape. */
export const pageName = (shape: ReadShape) => `${shape.name}Page`;

function pageOf(item: string): JsonSchema {
  return {
    type: 'object',
    description: `The collection envelope: pass nextCursor as the next request's cursor while hasMore is true. Items: ${item}.`,
    required: ['data', 'nextCursor', 'hasMore'],
    properties: { data: arrayOf(ref(item)), nextCursor: orNull(str), hasMore: bool },
    additionalProperties: false,
  };
}

/**
 * components/schemas for the read shapes: every shape a module declares or a route names, the
 * problem, and the page of each shape a list route returns.
 */
export function readShapeSchemas(routeShapes: Iterable<ReadShape>, pagedShapes: Iterable<ReadShape>): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const shape of [...DECLARED.shapes, ...routeShapes]) schemas[shape.name] = shape.schema;
  schemas.Problem = PROBLEM;
  for (const shape of pagedShapes) schemas[pageName(shape)] = pageOf(shape.name);
  return schemas;
}
