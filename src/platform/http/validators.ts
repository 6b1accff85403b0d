import * as countries from 'i18n-iso-countries';
import { registerDecorator, ValidateIf, ValidationArguments, ValidationOptions } from 'class-validator';

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

function simple(name: string, test: (value: unknown) => boolean, message: string, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message, ...options },
      validator: { validate: (value: unknown, _args?: ValidationArguments) => test(value) },
    });
  };
}
