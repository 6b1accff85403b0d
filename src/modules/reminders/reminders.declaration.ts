import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { CHECKLIST_EXAMPLES } from '../checklists/checklists.declaration';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';
import { REMINDER_SHAPE } from './reminder.response';
import { REMINDER_IDS } from './reminders.ids';

const exampleIds = { reminderId: 'rem_01JDZK6R3S4T5V6W7X8Y9Z0A1B' };

/** The example requests' values (the route docs' examples). */
export const REMINDER_EXAMPLES = {
  ...exampleIds,
  reminderBody: {
    title: 'Check the pool pump',
    date: '2030-07-15T11:00:00Z',
    propertyId: PROPERTY_EXAMPLES.propertyId,
    actionable: true,
    checklists: [{ checklistId: CHECKLIST_EXAMPLES.checklistId }],
  },
};

export const REMINDERS = declareModule({
  ids: REMINDER_IDS,
  tenantTables: [{ table: 'reminders' }],
  exampleIds,
  shapes: [REMINDER_SHAPE],
  examples: {
    Reminder: {
      reminderId: exampleIds.reminderId,
      propertyId: PROPERTY_EXAMPLES.propertyId,
      title: 'Check the pool pump',
      date: '2030-07-15T11:00:00.000Z',
      sourceBookingId: null,
      sourceId: null,
      actionable: true,
      checklists: [{ checklistId: CHECKLIST_EXAMPLES.checklistId }],
      jobRequestSettings: null,
      automatic: false,
      firedAt: null,
      createdAt: at,
      updatedAt: at,
    },
  },
  events: {
    'reminder.create': {
      payload: REMINDER_SHAPE,
      when: "`POST /v1/reminders` succeeded, or the scheduling automation created a booking's turnover reminder (in the booking's transaction, after `booking.create`)",
      results: '`[reminder]`: as in the 201 response',
    },
    'reminder.update': {
      payload: REMINDER_SHAPE,
      when: "the automation moved a turnover reminder to its booking's new check-out (after `booking.changeDates`)",
      results: '`[reminder]`: with its new `date` and `firedAt: null`',
    },
    'reminder.due': {
      payload: REMINDER_SHAPE,
      when: 'the reminder\'s `date` came (written by the worker, once per reminder and date; see `docs/reminders.md`, "Firing")',
      results: '`[reminder]`: with `firedAt` set',
    },
    'reminder.delete': {
      payload: REMINDER_SHAPE,
      when: '`DELETE /v1/reminders/{reminderId}`; or the automation removed a turnover reminder (after `booking.cancel` / `booking.delete`); or its property was deleted (one event per reminder, after the `booking.delete` events, before `property.delete`)',
      results: '`[reminder]`: the reminder as it was just before deletion',
    },
  },
  tags: { Reminders: "Reminders, and the bookings' automatic turnover reminders." },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    reminders: typeof REMINDERS;
  }
}
