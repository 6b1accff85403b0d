import type { IdKind } from '../ids/ids';

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) builders for the read shapes, and `shapeOf<T>()`,
 * which ties an object schema to the TypeScript type it describes: its `fields` must name every key
 * of T (optional keys wrapped in `optional()`), and nothing else, or the typecheck fails. A field
 * added to a `*Response` interface without its schema is a compile error in that same file.
 */
export type JsonSchema = Record<string, unknown>;

/** A field the mapper may leave out (an optional key of the type). */
export interface OptionalField {
  readonly optional: JsonSchema;
}

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** One schema per key of T: plain for the keys the mapper always returns, `optional(…)` for the others. */
export type FieldSchemas<T> = {
  [K in keyof T]-?: K extends OptionalKeys<T> ? OptionalField : JsonSchema & { optional?: never };
};

export const optional = (schema: JsonSchema): OptionalField => ({ optional: schema });

/** A closed object schema of T: required = its non-optional keys, in T's field order as written. */
export function shapeOf<T>(description: string, fields: FieldSchemas<T>): JsonSchema {
  const required: string[] = [];
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(fields as Record<string, JsonSchema | OptionalField>)) {
    if (isOptional(field)) properties[name] = field.optional;
    else {
      required.push(name);
      properties[name] = field;
    }
  }
  return { type: 'object', description, required, properties, additionalProperties: false };
}

function isOptional(field: JsonSchema | OptionalField): field is OptionalField {
  return Object.keys(field).length === 1 && 'optional' in field;
}

export const str = { type: 'string' };
export const text = (maxLength: number) => ({ type: 'string', maxLength });
export const num = { type: 'number' };
export const int = { type: 'integer' };
export const bool = { type: 'boolean' };
export const dateTime = { type: 'string', format: 'date-time' };
export const uri = { type: 'string', format: 'uri' };
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (items: JsonSchema) => ({ type: 'array', items });
/** One of the values a rule's constant lists (`enumOf(BED_TYPES)`). */
export const enumOf = (values: readonly unknown[], description?: string) => ({
  enum: [...values],
  ...(description ? { description } : {}),
});
export const orNull = (schema: JsonSchema): JsonSchema =>
  typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
/** A prefixed id (`prop_…`). */
/** An id of that kind (its module's `idKinds`): the prefix is written once, where the module declares it. */
export const id = ({ prefix }: IdKind) => ({ type: 'string', pattern: `^${prefix}_`, examples: [`${prefix}_01JDZK4M8Y8Q5X7W2N3B4C5D6E`] });
/** Adds a description to a schema. */
export const described = (schema: JsonSchema, description: string): JsonSchema => ({ ...schema, description });
/**
 * Every member of a string union, checked both ways by the compiler (a member missing from the
 * record, or one the union lacks, is a type error): `enumOf(everyMember<DeliveryStatus>({ pending: true, … }))`.
 */
export const everyMember = <T extends string>(members: Record<T, true>): T[] => Object.keys(members) as T[];
