import { FieldSchemas, JsonSchema, shapeOf } from './json-schema';

/** A read shape published under components/schemas/<name>: its schema is checked against T at compile time. */
export interface ReadShape<T = unknown> {
  readonly name: string;
  readonly schema: JsonSchema;
  /** Phantom: the TypeScript type the schema describes. */
  readonly type?: T;
}

/**
 * Declares the published schema of a response type, next to the type: `fields` must name every
 * key of T (see shapeOf), so the type and its schema cannot drift apart.
 */
export function readShape<T>(name: string, description: string, fields: FieldSchemas<T>): ReadShape<T> {
  return { name, schema: shapeOf<T>(description, fields) };
}

/** A read shape whose schema is not one object (a oneOf of shapes): written as is. */
export function readShapeSchema<T>(name: string, schema: JsonSchema): ReadShape<T> {
  return { name, schema };
}

/**
 * The keys given, in that order, that `source` holds (undefined ones left out). For values read from
 * jsonb, which reorders object keys: the read shape lists them in the spec's order, and nothing else.
 */
export function inKeyOrder<T extends object>(source: T, keys: ReadonlyArray<keyof T>): T {
  const shape: Partial<T> = {};
  for (const key of keys) if (source[key] !== undefined) shape[key] = source[key];
  return shape as T;
}
