import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in calendar-feeds.declaration.ts). */
export const CALENDAR_FEED_IDS = idKinds({ calendarFeed: 'cal' });
