import { QueryFailedError } from 'typeorm';

function violates(error: unknown, code: string, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === code && driverError.constraint === constraint;
}

/**
 * True when `error` is PostgreSQL's unique violation (23505) on `constraint`.
 * Services pre-check uniqueness for a friendly answer, and catch this for the race
 * two concurrent requests can still win against the pre-check.
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return violates(error, '23505', constraint);
}

/**
 * True when `error` is PostgreSQL's foreign key violation (23503) on `constraint`: the row the
 * insert names was deleted after the service found it (a race with a delete), which the caller
 * answers as that row's 404.
 */
export function isForeignKeyViolation(error: unknown, constraint: string): boolean {
  return violates(error, '23503', constraint);
}
