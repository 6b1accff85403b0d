import * as countries from 'i18n-iso-countries';
import { URL_MAX_LENGTH } from '../net/url-policy.rules';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';

/**
 * Reusable class-validator decorators for rules the library lacks. Messages start
 * with the property name, which the strict pipe rewrites to the full field path.
 */

/** ISO 3166-1 alpha-2, upper case only ("us" is refused: codes are case-sensitive on the wire). */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{2}$/.test(value) && countries.isValid(value);
}

export function IsCountryCode(options?: ValidationOptions): PropertyDecorator {
  return simple(
    'isCountryCode',
    isCountryCode,
    '$property must be an ISO 3166-1 alpha-2 country code in upper case (e.g. US, FR)',
    options,
  );
}

// Built once: the runtime's canonical zone names (ICU's list; it lacks UTC itself).
const KNOWN_ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
// IANA spelling: each segment starts with an upper-case letter ("Europe/Paris", "Etc/GMT+5", "EST5EDT").
const IANA_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*){0,2}$/;

/**
 * An IANA time zone the runtime knows. ICU's canonical list still uses some old names
 * (Asia/Calcutta, Europe/Kiev), so current IANA names and links it resolves
 * (Asia/Kolkata, Europe/Kyiv, US/Eastern) are accepted too, in their exact IANA spelling.
 */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (KNOWN_ZONES.has(value)) return true;
  if (value.length > 64 || !IANA_SHAPE.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function IsTimeZone(options?: ValidationOptions): PropertyDecorator {
  return simple('isTimeZone', isTimeZone, '$property must be an IANA time zone name (e.g. Europe/Paris)', options);
}

/**
 * An ISO 8601 / RFC 3339 date-time with its zone: `2025-06-01T15:00:00Z`, `2025-06-01T17:00+02:00`,
 * `2025-06-01T15:00:00.123456Z` (seconds optional; `T`/`Z` either case). Years 0001-9999, as
 * written and as the instant in UTC (dates are returned in UTC: `9999-12-31T23:00-05:00` would come
 * back as `+010000-…`, which no client parses), a real calendar day (no 30 February), hours 00-23
 * (no 24:00), no leap second. Fractions beyond the millisecond are truncated: every date is kept to
 * the millisecond, as a JavaScript Date holds it.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function parseDateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const lastDay = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day < 1 || day > lastDay) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [offsetHours, offsetMins] = [Number(m[10]), Number(m[11])];
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day); // setUTCFullYear, unlike Date.UTC, keeps years 0001-0099 as written
  utc.setUTCHours(hour, minute, second, millis);
  const instant = new Date(utc.getTime() - offsetMinutes * 60_000);
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant : undefined;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function isDateTime(value: unknown): value is string {
  return parseDateTime(value) !== undefined;
}

export function IsDateTime(options?: ValidationOptions): PropertyDecorator {
  return simple(
    'isDateTime',
    isDateTime,
    '$property must be an ISO 8601 date-time with a time zone (e.g. 2025-06-01T15:00:00Z or 2025-06-01T17:00:00+02:00)',
    options,
  );
}

export interface StringOrStringArrayLimits {
  /** Longest string allowed, alone or as an array item (characters). */
  maxLength: number;
  /** Most array items allowed; arrays must have at least one. */
  maxItems: number;
}

/** `value: string | string[]` (otherAttributes): a string of at most maxLength, or 1..maxItems such strings. */
export function IsStringOrStringArray(limits: StringOrStringArrayLimits, options?: ValidationOptions): PropertyDecorator {
  const fits = (s: unknown) => typeof s === 'string' && [...s].length <= limits.maxLength;
  return simple(
    'isStringOrStringArray',
    (value) => fits(value) || (Array.isArray(value) && value.length >= 1 && value.length <= limits.maxItems && value.every(fits)),
    `$property must be a string of at most ${limits.maxLength} characters, or an array of 1-${limits.maxItems} such strings`,
    options,
    [limits],
  );
}

/**
 * A field that may be left out but not cleared: when absent every rule on it is skipped,
 * while null is validated like any value (and refused by the field's type rule). @IsOptional
 * would let null through as well.
 */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** The longest JSON-RPC id string accepted (ids are the client's; none needs more). */
export const JSON_RPC_ID_MAX_LENGTH = 200;

/** A JSON-RPC request id as MCP allows it: a string or an integer (a safe one, as the MCP SDK checks it). */
export function IsJsonRpcId(options?: ValidationOptions): PropertyDecorator {
  return simple(
    'isJsonRpcId',
    (value) => (typeof value === 'string' && value.length <= JSON_RPC_ID_MAX_LENGTH) || Number.isSafeInteger(value),
    `$property must be a string of at most ${JSON_RPC_ID_MAX_LENGTH} characters or an integer`,
    options,
  );
}

/** `constraints` are not used by the check; they let the OpenAPI document (src/openapi) state the limits. */
function simple(
  name: string,
  test: (value: unknown) => boolean,
  message: string,
  options?: ValidationOptions,
  constraints?: unknown[],
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      constraints,
      options: { message, ...options },
      validator: { validate: (value: unknown, _args?: ValidationArguments) => test(value) },
    });
  };
}

// Rules that DTOs repeat, each one decorator. Each registers its parts in the order the decorator
// stack it replaces did (a stack registers bottom first): that order is the order of the messages a
// 400 lists and of the keys in the document's request schemas.

/** Several property decorators as one, registered in the order given. */
export function allOf(...rules: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => rules.forEach((rule) => rule(target, property));
}

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/** `@IsString() @MaxLength(URL_MAX_LENGTH) @IsUrl(http or https)`: a link the service fetches or shows. */
export function IsHttpUrl(message = '$property must be an http or https URL'): PropertyDecorator {
  return allOf(IsUrl(HTTP_URL, { message }), MaxLength(URL_MAX_LENGTH), IsString());
}

/** `@IsArray() @ArrayMaxSize(maxItems)` of http(s) links of at most URL_MAX_LENGTH characters each. */
export function IsHttpUrlList(maxItems: number): PropertyDecorator {
  return allOf(MaxLength(URL_MAX_LENGTH, { each: true }), IsUrl(HTTP_URL, { each: true }), ArrayMaxSize(maxItems), IsArray());
}

/** Tags (of properties and bookings, spec 8): 1-10 per list (the empty list is refused), each 1-50 characters (our choice). */
export const TAG_LIMITS = { tags: { min: 1, max: 10 }, tag: { min: 1, max: 50 } } as const;

/** `@IsArray() @ArrayMinSize @ArrayMaxSize @IsString({ each }) @Length({ each })` with TAG_LIMITS. */
export function IsTagList(): PropertyDecorator {
  const { tags, tag } = TAG_LIMITS;
  return allOf(
    Length(tag.min, tag.max, { each: true }),
    IsString({ each: true }),
    ArrayMaxSize(tags.max),
    ArrayMinSize(tags.min),
    IsArray(),
  );
}

/** `@IsArray() [@ArrayMinSize(min)] @ArrayMaxSize(max) @ValidateNested({ each: true }) @Type(() => item)`. */
export function IsListOf(item: () => new () => object, max: number, min?: number): PropertyDecorator {
  const minimum = min === undefined ? [] : [ArrayMinSize(min)];
  return allOf(Type(item), ValidateNested({ each: true }), ArrayMaxSize(max), ...minimum, IsArray());
}

/** `@IsObject() @ValidateNested() @Type(() => type)`: one nested object. */
export function IsNested(type: () => new () => object): PropertyDecorator {
  return allOf(Type(type), ValidateNested(), IsObject());
}

/** `@IsDefined() @IsString() @Length(1, maxLength)`: a text that must be sent, not empty. */
export function IsRequiredText(maxLength: number): PropertyDecorator {
  return allOf(Length(1, maxLength), IsString(), IsDefined());
}

/** `@IsOptional() @IsString() @Length(1, maxLength)`: a text that may be left out (or null), not empty when sent. */
export function IsOptionalText(maxLength: number): PropertyDecorator {
  return allOf(Length(1, maxLength), IsString(), IsOptional());
}

/** `@IsDefined() @IsDateTime()`: a date-time that must be sent. */
export function IsRequiredDateTime(): PropertyDecorator {
  return allOf(IsDateTime(), IsDefined());
}
