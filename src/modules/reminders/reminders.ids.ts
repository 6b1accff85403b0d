import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in reminders.declaration.ts). */
export const REMINDER_IDS = idKinds({ reminder: 'rem' });
