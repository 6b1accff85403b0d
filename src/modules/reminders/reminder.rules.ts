import { FieldIssue, ValidationError } from '../../platform/errors/domain-error';
import { parseDateTime } from '../../platform/http/validators';
import { orderedInstants } from '../../platform/pagination/date-window';
import type { JobRequestSettings, JobTime } from './reminder.entity';

/** Limits of the reminder write shape: the spec's (2.5, 8) plus the ones we chose where it is silent (docs/reminders.md). */
export const REMINDER_LIMITS = {
  title: 200,
  sourceId: 100,
  checklists: 20,
  checklistId: 100,
  message: { min: 3, max: 500 },
  duration: { min: 1, max: 999 },
  offeredPriceMax: 1_000_000_000,
} as const;

/** The job time object's types (spec 2.5), for reminders' job settings and job requests alike. */
export const JOB_TIME_TYPES = ['fixed', 'flexible'] as const;
export type JobTimeType = (typeof JOB_TIME_TYPES)[number];

/** The job time object as sent (validated by JobTimeDto); null optional members mean "not set". */
export interface JobTimeInput {
  type: JobTimeType;
  startTime: string;
  endTime?: string | null;
  durationInHours?: number | null;
  durationInMinutes?: number | null;
}

export interface JobRequestSettingsInput {
  time?: JobTimeInput | null;
  offeredPrice?: number | null;
  offeredPriceCurrency?: string | null;
  message?: string | null;
}

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/**
 * A job time as stored: the keys sent, times normalised to UTC ISO strings (to the millisecond).
 * An endTime that is not after startTime is a 400 at `<pointer>/endTime`.
 */
export function storedJobTime(time: JobTimeInput, pointer: string): JobTime {
  const start = parseDateTime(time.startTime);
  if (!start) throw new Error('storedJobTime: validate startTime first');
  const stored: JobTime = { type: time.type, startTime: start.toISOString() };
  if (present(time.endTime)) {
    const [, end] = orderedInstants({ startTime: time.startTime }, { endTime: time.endTime }, 'sameRefused', pointer);
    stored.endTime = end.toISOString();
  }
  if (present(time.durationInHours)) stored.durationInHours = time.durationInHours;
  if (present(time.durationInMinutes)) stored.durationInMinutes = time.durationInMinutes;
  return stored;
}

/** jobRequestSettings as stored: the keys sent (null ones left out), its time normalised. */
export function storedJobRequestSettings(settings: JobRequestSettingsInput): JobRequestSettings {
  const stored: JobRequestSettings = {};
  if (present(settings.time)) stored.time = storedJobTime(settings.time, '#/jobRequestSettings/time');
  if (present(settings.offeredPrice)) stored.offeredPrice = settings.offeredPrice;
  if (present(settings.offeredPriceCurrency)) stored.offeredPriceCurrency = settings.offeredPriceCurrency;
  if (present(settings.message)) stored.message = settings.message;
  return stored;
}

/**
 * A reminder's checklists must be of its own property: a reminder pre-fills the job of that property.
 * One 400 issue per checklist of another property, at #/checklists/<i>/checklistId.
 */
export function assertChecklistsOfProperty(propertyId: string, checklists: Array<{ checklistId: string; propertyId: string }>): void {
  const issues: FieldIssue[] = [];
  checklists.forEach((checklist, i) => {
    if (checklist.propertyId !== propertyId) {
      issues.push({
        pointer: `#/checklists/${i}/checklistId`,
        detail: `Checklist ${checklist.checklistId} belongs to property ${checklist.propertyId}, not to the reminder's property ${propertyId}`,
      });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);
}

/** The booking fields the scheduling automation reads. */
export interface AutomationBooking {
  propertyId: string;
  sourceBookingId: string;
  endDate: Date;
}

/** The automatic turnover reminder of a booking (spec 1: the scheduling automation): at check-out, actionable. */
export function automaticReminderFor(booking: AutomationBooking) {
  return {
    propertyId: booking.propertyId,
    title: `Turnover after booking ${booking.sourceBookingId}`,
    date: booking.endDate,
    sourceBookingId: booking.sourceBookingId,
    sourceId: null,
    actionable: true,
    checklistIds: [] as string[],
    jobRequestSettings: null,
    automatic: true,
  };
}
