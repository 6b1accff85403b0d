import {
  arrayOf,
  bool,
  dateTime,
  described,
  enumOf,
  id,
  int,
  optional,
  orNull,
  shapeOf,
  str,
  text,
} from '../../platform/openapi/json-schema';
import { inKeyOrder, readShape } from '../../platform/openapi/read-shape';
import { JobRequestSettings, JobTime, ReminderEntity } from './reminder.entity';
import { JOB_TIME_TYPES } from './reminder.rules';
import { CHECKLIST_IDS } from '../checklists/checklists.ids';
import { PROPERTY_IDS } from '../properties/properties.ids';
import { REMINDER_IDS } from './reminders.ids';

/**
 * The reminder read shape (the spec shows none; docs/reminders.md): every field written, the ids and
 * timestamps, whether the automation made it and when it fired. Used by responses and reminder.* events.
 */
export interface ReminderResponse {
  reminderId: string;
  propertyId: string;
  title: string;
  date: string;
  sourceBookingId: string | null;
  sourceId: string | null;
  actionable: boolean;
  checklists: Array<{ checklistId: string }>;
  jobRequestSettings: JobRequestSettings | null;
  automatic: boolean;
  firedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toReminderResponse(reminder: ReminderEntity): ReminderResponse {
  return {
    reminderId: reminder.id,
    propertyId: reminder.propertyId,
    title: reminder.title,
    date: reminder.date.toISOString(),
    sourceBookingId: reminder.sourceBookingId,
    sourceId: reminder.sourceId,
    actionable: reminder.actionable,
    checklists: reminder.checklistIds.map((checklistId) => ({ checklistId })),
    jobRequestSettings: reminder.jobRequestSettings ? toSettings(reminder.jobRequestSettings) : null,
    automatic: reminder.automatic,
    firedAt: reminder.firedAt ? reminder.firedAt.toISOString() : null,
    createdAt: reminder.createdAt.toISOString(),
    updatedAt: reminder.updatedAt.toISOString(),
  };
}

/* jsonb reorders keys: the settings are rebuilt in the spec's field order, with only the spec's fields. */

function toSettings(settings: JobRequestSettings): JobRequestSettings {
  const shape = inKeyOrder(settings, ['time', 'offeredPrice', 'offeredPriceCurrency', 'message']);
  if (shape.time !== undefined)
    shape.time = inKeyOrder(shape.time, ['type', 'startTime', 'endTime', 'durationInHours', 'durationInMinutes']);
  return shape;
}

export const REMINDER_SHAPE = readShape<ReminderResponse>(
  'Reminder',
  'A reminder (spec 2.5); automatic ones are the turnover reminders the booking automation creates at check-out.',
  {
    reminderId: id(REMINDER_IDS.reminder),
    propertyId: id(PROPERTY_IDS.property),
    title: str,
    date: dateTime,
    sourceBookingId: orNull(str),
    sourceId: orNull(str),
    actionable: bool,
    checklists: arrayOf(shapeOf<{ checklistId: string }>('A checklist of the reminder.', { checklistId: id(CHECKLIST_IDS.checklist) })),
    jobRequestSettings: orNull(
      shapeOf<JobRequestSettings>('Pre-fills the job the reminder should turn into.', {
        time: optional(
          shapeOf<JobTime>('The job time object (spec 2.5).', {
            type: enumOf(JOB_TIME_TYPES),
            startTime: dateTime,
            endTime: optional(orNull(dateTime)),
            durationInHours: optional(orNull(int)),
            durationInMinutes: optional(orNull(int)),
          }),
        ),
        offeredPrice: optional({ type: 'number', minimum: 0 }),
        offeredPriceCurrency: optional(str),
        message: optional(text(500)),
      }),
    ),
    automatic: bool,
    firedAt: described(orNull(dateTime), 'when the reminder fired (reminder.due); null until then'),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
