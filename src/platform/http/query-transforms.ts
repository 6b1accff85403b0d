import { Transform } from 'class-transformer';

const DECIMAL_INTEGER = /^-?\d{1,15}$/;

/**
 * Converts a query-string integer strictly: only plain decimal digits become a
 * number. `@Type(() => Number)` would go through Number(), which also takes
 * `0x10`, `1e1`, ` 5` and `` (0). Anything else stays as sent, so @IsInt()
 * rejects it with the field's pointer.
 */
export function ToInt(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value));
}
