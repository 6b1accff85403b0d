import { ValidationError } from '../errors/domain-error';
import { parseDateTime } from '../http/validators';

/** The dateFrom / dateTo window of a list (bookings, reminders, job requests). */
export interface DateWindow {
  from: Date;
  to: Date;
}

/**
 * The window of `?dateFrom=&dateTo=`, both already validated as date-times (WindowListQueryDto).
 * dateFrom after dateTo is a 400 at #/dateTo; equal bounds are one instant, which is a valid window.
 */
export function dateWindowOf(dateFrom: string, dateTo: string): DateWindow {
  const [from, to] = orderedInstants({ dateFrom }, { dateTo }, 'sameAllowed');
  return { from, to };
}

/**
 * Two fields already validated as date-times (`{ startDate: value }`), as instants in order: the second
 * after the first (a window also takes them equal), else a 400 at the second field (below `at`, the
 * pointer of their object) naming both.
 */
export function orderedInstants(
  first: Record<string, string>,
  second: Record<string, string>,
  same: 'sameAllowed' | 'sameRefused',
  at = '#',
): [Date, Date] {
  const [[firstName, firstValue]] = Object.entries(first);
  const [[secondName, secondValue]] = Object.entries(second);
  const [a, b] = [parseDateTime(firstValue), parseDateTime(secondValue)];
  if (!a || !b) throw new Error(`validate ${firstName} and ${secondName} as date-times first`);
  const inOrder = same === 'sameAllowed' ? a.getTime() <= b.getTime() : a.getTime() < b.getTime();
  if (!inOrder) {
    const rule = same === 'sameAllowed' ? 'must not be before' : 'must be after';
    throw ValidationError.field(`${at}/${secondName}`, `${secondName} (${b.toISOString()}) ${rule} ${firstName} (${a.toISOString()})`);
  }
  return [a, b];
}
