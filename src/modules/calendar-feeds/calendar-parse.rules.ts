import ICAL from 'ical.js';
import { atTimeOfDay, isBlockedSummary, isKnownTimeZone, WallClock, zonedTimeToUtc } from './calendar-feed.rules';

/** One stay a calendar lists (a VEVENT with a UID, a start and an end). */
export interface CalendarStay {
  uid: string;
  summary: string | null;
  startDate: Date;
  endDate: Date;
  /** The summary marks blocked dates (calendar-feed.rules BLOCKED_SUMMARIES). */
  blocked: boolean;
}

export interface SkippedEvent {
  uid: string | null;
  reason: string;
}

export interface ParsedCalendar {
  stays: CalendarStay[];
  /** Events that could not become a stay; the rest of the calendar is used. */
  skipped: SkippedEvent[];
}

/** How a feed turns date-only and floating values into instants. */
export interface StaySettings {
  /** The property's IANA time zone. */
  timeZone: string;
  checkInTime: string;
  checkOutTime: string;
}

/**
 * Longest UID kept: the entries' primary key (feed, UID) is a btree index, whose entries hold about
 * 2.7 kB; a longer UID would fail the insert and with it every sync of the feed.
 */
export const UID_MAX_LENGTH = 500;

/** The whole calendar is unusable; the message tells a host what to check. */
export class CalendarParseError extends Error {
  override name = 'CalendarParseError';
}

/**
 * Parses an iCalendar body (RFC 5545, with ical.js: unfolding, escapes, TZID with or without VTIMEZONE)
 * into stays. A body that is not a calendar, or that ical.js cannot read, throws CalendarParseError; a bad
 * event inside a readable calendar is skipped and reported. Cancelled events (STATUS:CANCELLED) are not
 * stays: they count as no longer listed.
 */
export function parseCalendar(text: string, settings: StaySettings): ParsedCalendar {
  // PostgreSQL text cannot hold U+0000: one NUL in a UID or summary would fail every sync of the feed.
  const body = text.replace(/^\uFEFF/, '').replaceAll('\u0000', '');
  if (!/^\s*BEGIN:VCALENDAR/i.test(body)) {
    throw new CalendarParseError(
      `the link did not return an iCalendar file (the response starts with "${preview(body)}"); use the listing's iCal export link`,
    );
  }
  let root: ICAL.Component;
  try {
    const parsed = ICAL.parse(body) as unknown[];
    const first = Array.isArray(parsed[0]) ? parsed[0] : parsed;
    root = new ICAL.Component(first as unknown[]);
  } catch (error) {
    throw new CalendarParseError(`the calendar is malformed and could not be read: ${(error as Error).message}`);
  }
  if (root.name !== 'vcalendar') throw new CalendarParseError('the calendar is malformed: it holds no VCALENDAR');

  const stays: CalendarStay[] = [];
  const skipped: SkippedEvent[] = [];
  const seen = new Set<string>();
  for (const component of root.getAllSubcomponents('vevent')) {
    const uidValue = component.getFirstPropertyValue('uid');
    const uid = typeof uidValue === 'string' && uidValue.trim() !== '' ? uidValue.trim() : null;
    const skip = (reason: string) => skipped.push({ uid, reason });
    try {
      if (!uid) {
        skip('the event has no UID');
        continue;
      }
      if (uid.length > UID_MAX_LENGTH) {
        skipped.push({ uid: null, reason: `the event's UID is longer than ${UID_MAX_LENGTH} characters` });
        continue;
      }
      if (component.hasProperty('recurrence-id')) {
        skip('an override of a recurring event (RECURRENCE-ID) is not a stay');
        continue;
      }
      if (String(component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') continue;
      if (!component.hasProperty('dtstart')) {
        skip('the event has no start (DTSTART)');
        continue;
      }
      if (!component.hasProperty('dtend') && !component.hasProperty('duration')) {
        skip('the event has no end (DTEND or DURATION)');
        continue;
      }
      if (seen.has(uid)) {
        skip('another event of the calendar has the same UID');
        continue;
      }
      const event = new ICAL.Event(component);
      const startDate = instantOf(event.startDate, tzidOf(component, 'dtstart'), settings.checkInTime, settings);
      const endDate = instantOf(
        event.endDate,
        tzidOf(component, component.hasProperty('dtend') ? 'dtend' : 'dtstart'),
        settings.checkOutTime,
        settings,
      );
      if (Number.isNaN(startDate.getTime()) || Number.isNaN(endDate.getTime())) {
        skip('the event has an unreadable date');
        continue;
      }
      if (endDate.getTime() <= startDate.getTime()) {
        skip(`the event ends (${endDate.toISOString()}) before it starts (${startDate.toISOString()})`);
        continue;
      }
      seen.add(uid);
      const summaryValue = component.getFirstPropertyValue('summary');
      const summary = typeof summaryValue === 'string' ? summaryValue : null;
      stays.push({ uid, summary, startDate, endDate, blocked: isBlockedSummary(summary) });
    } catch (error) {
      skip(`the event could not be read: ${(error as Error).message}`);
    }
  }
  return { stays, skipped };
}

/**
 * A calendar value as an instant: a date-only value at the feed's check-in or check-out time in the
 * property's zone; a UTC value or one in a zone the calendar defines (VTIMEZONE) as ical.js reads it;
 * a value with a TZID the calendar does not define, in that IANA zone when Intl knows it, else (and for
 * floating values) in the property's zone.
 */
function instantOf(time: ICAL.Time, tzidParameter: string | undefined, timeOfDay: string, settings: StaySettings): Date {
  if (time.isDate) return zonedTimeToUtc(atTimeOfDay(time, timeOfDay), settings.timeZone);
  const tzid = time.zone?.tzid;
  if (tzid && tzid !== 'floating') return new Date(time.toUnixTime() * 1000);
  const zone = tzidParameter && isKnownTimeZone(tzidParameter) ? tzidParameter : settings.timeZone;
  const wall: WallClock = { year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute, second: time.second };
  return zonedTimeToUtc(wall, zone);
}

function tzidOf(component: ICAL.Component, name: string): string | undefined {
  const value = component.getFirstProperty(name)?.getParameter('tzid');
  return typeof value === 'string' ? value : undefined;
}

function preview(body: string): string {
  const start = body.trim().slice(0, 40).replace(/\s+/g, ' ');
  return start === '' ? '(empty)' : start;
}
