import { IS_OPTIONAL, ValidationTypes } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { EVENT_NAME_MAX_LENGTH } from '../modules/webhooks/subscriptions/event-filter.rules';
import { JSON_RPC_ID_MAX_LENGTH, type StringOrStringArrayLimits } from '../platform/http/validators';

// Where class-transformer keeps @Type(): class-validator-jsonschema reads nested DTO classes from it (its documented setup).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as typeof import('class-transformer/types/storage');

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) or a fragment of one. */
export type JsonSchema = Record<string, unknown>;

const NULLABLE = 'x-accepts-null';

/**
 * The request DTOs as JSON Schemas, read from the class-validator metadata the validation pipe
 * enforces (class-validator-jsonschema), so the document states exactly the rules that run and no
 * DTO carries a second, documentation-only decorator per field. Our own validators
 * (platform/http/validators.ts) are described here, once.
 */
const CONVERTERS: Record<string, unknown> = {
  isCountryCode: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code, upper case' },
  isTimeZone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone name', examples: ['Europe/Paris'] },
  isDateTime: { type: 'string', format: 'date-time', description: 'ISO 8601 date-time with a zone (Z or ±hh:mm)' },
  isUrl: { type: 'string', format: 'uri' },
  isISO4217CurrencyCode: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code, upper case' },
  isEventName: { type: 'string', maxLength: EVENT_NAME_MAX_LENGTH, description: 'an event name, e.g. property.create' },
  isEventFilterList: {
    type: 'array',
    items: {
      type: 'string',
      maxLength: EVENT_NAME_MAX_LENGTH,
      description: 'an exact event name, a prefix wildcard (jobRequest.*) or *',
    },
  },
  // Issue 42 (receiver-auth.rules.ts): custom headers sent with every attempt; the names the platform sets are refused too.
  receiverHeaders: {
    type: 'object',
    maxProperties: 10,
    propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$', maxLength: 64 },
    additionalProperties: { type: 'string', maxLength: 1024, pattern: '^[\\x20-\\x7e]*$' },
    description:
      'Extension: custom headers sent with every attempt (write only: reads show each value as "[redacted]"). Names unique case-insensitively; content-type, content-length, host, connection, transfer-encoding, user-agent, traceparent, x-test-mode and webhook-* are refused. null removes them (PATCH).',
  },
  isJsonRpcId: {
    oneOf: [
      { type: 'string', maxLength: JSON_RPC_ID_MAX_LENGTH },
      { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    ],
  },
  isStringOrStringArray: (meta: ValidationMetadata) => {
    const { maxLength, maxItems } = meta.constraints[0] as StringOrStringArrayLimits;
    const text = { type: 'string', maxLength };
    return { oneOf: [text, { type: 'array', minItems: 1, maxItems, items: text }] };
  },
  // The library's own min/max also say `type: number`, which would overwrite @IsInt()'s integer when
  // the bound is registered after it (rules composed into one decorator); the type is IsInt's or IsNumber's.
  min: (meta: ValidationMetadata) => ({ minimum: meta.constraints[0] as number }),
  max: (meta: ValidationMetadata) => ({ maximum: meta.constraints[0] as number }),
  // @IsOptional() also lets null through (the API reads it as "not set"); OptionalNotNull (ValidateIf) does not.
  [ValidationTypes.CONDITIONAL_VALIDATION]: (meta: ValidationMetadata) => (meta.name === IS_OPTIONAL ? { [NULLABLE]: true } : {}),
};

let cached: Record<string, JsonSchema> | undefined;

/** Every class-validator DTO by class name, in the form the document uses (built once per process). */
export function dtoSchemas(dtoClasses: Iterable<new () => object>): Record<string, JsonSchema> {
  if (!cached) {
    const raw = validationMetadatasToSchemas({
      classTransformerMetadataStorage: defaultMetadataStorage,
      refPointerPrefix: '#/components/schemas/',
      additionalConverters: CONVERTERS as never,
    }) as Record<string, JsonSchema>;
    cached = Object.fromEntries(Object.entries(raw).map(([name, schema]) => [name, tidy(schema)]));
  }
  for (const dto of dtoClasses) addDefaults(cached[dto.name], dto);
  return cached;
}

/** Bodies and queries are strict (unknown fields are a 400 objectStrict): the schemas say so. */
function tidy(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) properties[name] = tidyProperty(property);
  return { ...schema, additionalProperties: false };
}

function tidyProperty(input: JsonSchema): JsonSchema {
  const { [NULLABLE]: acceptsNull, not: _notNull, ...property } = input;
  // A rule the converters do not know falls back to the design type: `string | null` reads as Object.
  if (property.$ref === '#/components/schemas/Object') delete property.$ref;
  if (property.$ref) delete property.type; // a $ref says it all
  if (property.type === 'array' && property.items) property.items = tidyProperty(property.items as JsonSchema);
  if (!acceptsNull) return property;
  if (typeof property.type === 'string') return { ...property, type: [property.type, 'null'] };
  return { anyOf: [property, { type: 'null' }] };
}

/** Field initialisers (`limit = 50`) are the defaults the pipe applies: read them from a fresh instance. */
function addDefaults(schema: JsonSchema | undefined, dto: new () => object): void {
  if (!schema?.properties) return;
  const instance = new dto() as Record<string, unknown>;
  for (const [name, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
    const value = instance[name];
    if (value !== undefined && property.default === undefined) property.default = value;
  }
}

/** A query DTO's schema as OpenAPI query parameters (a query string cannot carry null: left out of them). */
export function queryParameters(schema: JsonSchema): JsonSchema[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: Array.isArray(property.type) ? { ...property, type: property.type[0] } : property,
  }));
}
