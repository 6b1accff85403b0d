import { dtoSchemas, JsonSchema } from '../../openapi/dto-schemas';
import { pageName, readShapeSchemas } from '../../openapi/read-shapes';
import { eventFeedSchemas } from '../../openapi/webhooks';
import type { ReadShape } from '../../platform/openapi/read-shape';

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/**
 * The schemas the OpenAPI document publishes under components/schemas, built from the same sources
 * (the read shapes, the event feed's, the DTOs' class-validator rules), with the page of each shape a
 * list tool returns. Built when first asked, once every DTO class is loaded.
 */
export function componentSchemas(pagedShapes: Iterable<ReadShape>): Record<string, JsonSchema> {
  return { ...readShapeSchemas([], pagedShapes), ...eventFeedSchemas(), ...dtoSchemas([]) };
}

/**
 * A schema an MCP client can use on its own: every `#/components/schemas/X` it reaches is copied under
 * `$defs` and the reference rewritten to `#/$defs/X` (MCP tools carry plain JSON Schemas, no document).
 */
export function selfContained(root: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        const name = key === '$ref' && typeof child === 'string' ? COMPONENT_REF.exec(child)?.[1] : undefined;
        if (name === undefined) return [key, rewrite(child)];
        if (!components[name]) throw new Error(`no schema ${name} for ${String(child)}`);
        if (!(name in defs)) {
          defs[name] = {}; // before the walk: a schema that reaches itself stops here
          defs[name] = rewrite(components[name]) as JsonSchema;
        }
        return [key, `#/$defs/${name}`];
      }),
    );
  };
  const schema = rewrite(root) as JsonSchema;
  return Object.keys(defs).length > 0 ? { ...schema, $defs: defs } : schema;
}

/** The root schema of a page of `shape` (an MCP tool's output schema must itself be an object schema, not a $ref). */
export function pageSchema(shape: ReadShape, components: Record<string, JsonSchema>): JsonSchema {
  return components[pageName(shape)];
}

/** A tool's input: its path ids, then the route's DTO fields, then (creates) idempotencyKey, as one closed object. */
export function inputSchema(parts: { ids: Record<string, JsonSchema>; dto?: JsonSchema; extra?: Record<string, JsonSchema> }): JsonSchema {
  const dto = parts.dto ?? { properties: {}, required: [] };
  return {
    type: 'object',
    properties: { ...parts.ids, ...(dto.properties as object), ...parts.extra },
    required: [...Object.keys(parts.ids), ...((dto.required as string[] | undefined) ?? [])],
    additionalProperties: false,
  };
}
