import { createHash } from 'node:crypto';
import { BOOKING_LIMITS, type StoredGuest } from '../bookings/booking.rules';

/** Feed limits and defaults (issue 14). */
export const FEED_LIMITS = {
  perProperty: 10,
  label: 100,
  numberOfGuests: { min: 1, max: 50 },
} as const;

export const FEED_DEFAULTS = { checkInTime: '16:00', checkOutTime: '11:00', defaultNumberOfGuests: 1, skipBlocked: true } as const;

export type FeedStatus = 'pending' | 'ok' | 'failing';

/** Failing syncs in a row that emit calendarFeed.failing (once per streak). */
export const FAILURES_BEFORE_EVENT = 3;

/** "HH:MM", 00:00-23:59. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * Summaries that mark dates as blocked rather than booked, as the three big channels export them:
 * Airbnb "Not available" / "Airbnb (Not available)", Vrbo "Blocked", Booking.com "CLOSED - Not available".
 * Compared case-insensitively, surrounding and repeated spaces ignored, any dash between words alike.
 */
export const BLOCKED_SUMMARIES: readonly string[] = [
  'not available',
  'airbnb (not available)',
  'blocked',
  'closed - not available',
  'closed',
  'unavailable',
];

const BLOCKED = new Set(BLOCKED_SUMMARIES);

export function isBlockedSummary(summary: string | null | undefined): boolean {
  if (!summary) return false;
  const normalised = summary
    .trim()
    .toLowerCase()
    .replace(/\s*[-\u2010-\u2015]\s*/g, ' - ')
    .replace(/\s+/g, ' ');
  return BLOCKED.has(normalised);
}

/** `ical:<feedId>:<UID>`; a UID too long for sourceBookingId's 100 characters is replaced by its SHA-256 (hex, 32 characters). */
export function sourceBookingIdOf(feedId: string, uid: string): string {
  const plain = `ical:${feedId}:${uid}`;
  if (plain.length <= BOOKING_LIMITS.sourceBookingId.max) return plain;
  return `ical:${feedId}:sha256:${createHash('sha256').update(uid, 'utf8').digest('hex').slice(0, 32)}`;
}

/** The booking's title: the summary, trimmed and cut to the title limit; null when empty. */
export function titleOf(summary: string | null): string | null {
  const text = (summary ?? '').trim();
  return text === '' ? null : text.slice(0, BOOKING_LIMITS.title);
}

/** One guest named from the summary, or "Guest". */
export function guestsOf(summary: string | null): StoredGuest[] {
  const name = (summary ?? '').trim().slice(0, BOOKING_LIMITS.guestText);
  return [{ sourceId: 'ical-guest', firstName: name === '' ? 'Guest' : name }];
}

/** A wall-clock time as its parts: what a calendar says before a time zone turns it into an instant. */
export interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** "16:00" on a date-only value's day. */
export function atTimeOfDay(date: Pick<WallClock, 'year' | 'month' | 'day'>, time: string): WallClock {
  const [hour, minute] = time.split(':').map(Number);
  return { year: date.year, month: date.month, day: date.day, hour, minute, second: 0 };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when Intl knows the IANA zone name. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at an instant, in ms (east positive). */
function offsetAt(timeZone: string, instant: number): number {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall-clock time names in an IANA zone. A time skipped by a spring-forward gap moves
 * forward by the gap (02:30 → 03:30); a repeated one (fall back) takes its first, earlier occurrence.
 */
export function zonedTimeToUtc(wall: WallClock, timeZone: string): Date {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const before = offsetAt(timeZone, naive - 43_200_000);
  const after = offsetAt(timeZone, naive + 43_200_000);
  const shows = (instant: number) => offsetAt(timeZone, instant) === naive - instant;
  const candidates = [naive - before, naive - after].filter(shows);
  // None: the time falls in a gap, and the offset before it carries it past the gap.
  return new Date(candidates.length > 0 ? Math.min(...candidates) : naive - before);
}

/**
 * How long after a sync the feed is next due: the interval, shortened at random by up to a tenth, so
 * feeds created together (a host pasting three links) or brought back together after an outage spread
 * over the interval instead of syncing in step forever. `random` is in [0, 1).
 */
export function nextSyncDelayMs(intervalMs: number, random: number): number {
  return intervalMs - Math.floor(random * intervalMs * 0.1);
}

/** A feed's sync bookkeeping, before and after one sync. */
export interface SyncState {
  status: FeedStatus;
  consecutiveFailures: number;
}

export type SyncTransition = SyncState & { event?: 'calendarFeed.failing' | 'calendarFeed.recovered' };

/**
 * After a sync: a failure sets failing at once (visible on the feed) and the third in a row emits
 * calendarFeed.failing, once per streak; the first success after that emits calendarFeed.recovered.
 * A success after fewer failures just clears the status (nothing was announced, so nothing to take back).
 */
export function afterSync(previous: SyncState, succeeded: boolean): SyncTransition {
  if (!succeeded) {
    const consecutiveFailures = previous.consecutiveFailures + 1;
    return {
      status: 'failing',
      consecutiveFailures,
      ...(consecutiveFailures === FAILURES_BEFORE_EVENT ? { event: 'calendarFeed.failing' as const } : {}),
    };
  }
  const announced = previous.consecutiveFailures >= FAILURES_BEFORE_EVENT;
  return { status: 'ok', consecutiveFailures: 0, ...(announced ? { event: 'calendarFeed.recovered' as const } : {}) };
}

/** webcal:// (how calendar apps name feed links) is the same resource over https. */
export function normaliseFeedUrl(raw: string): string {
  return /^webcals?:\/\//i.test(raw) ? raw.replace(/^webcals?:\/\//i, 'https://') : raw;
}
