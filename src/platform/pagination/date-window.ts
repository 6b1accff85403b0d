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
  const from = parseDateTime(dateFrom);
  const to = parseDateTime(dateTo);
  if (!from || !to) throw new Error('dateWindowOf: validate dateFrom and dateTo as date-times first');
  if (from.getTime() > to.getTime()) {
    throw ValidationError.field('#/dateTo', `dateTo (${to.toISOString()}) must not be before dateFrom (${from.toISOString()})`);
  }
  return { from, to };
}
