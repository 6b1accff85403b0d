import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CalendarParseError, parseCalendar, UID_MAX_LENGTH } from './calendar-parse.rules';

const fixture = (name: string) => readFileSync(join(__dirname, '../../../test/fixtures/ical', name), 'utf8');
const paris = { timeZone: 'Europe/Paris', checkInTime: '16:00', checkOutTime: '11:00' };

describe('parseCalendar', () => {
  it('reads an Airbnb export: date-only stays at the feed times in the property zone, folded lines, blocked dates marked', () => {
    const { stays, skipped } = parseCalendar(fixture('airbnb.ics'), paris);
    expect(skipped).toEqual([]);
    expect(stays.map((s) => [s.uid.slice(0, 17), s.startDate.toISOString(), s.endDate.toISOString(), s.summary, s.blocked])).toEqual([
      ['1418fb94e984-0d5c', '2020-06-08T14:00:00.000Z', '2020-06-12T09:00:00.000Z', 'Reserved', false],
      ['1418fb94e984-2f8a', '2030-07-01T14:00:00.000Z', '2030-07-05T09:00:00.000Z', 'Reserved', false],
      ['1418fb94e984-7c6d', '2030-07-10T14:00:00.000Z', '2030-07-14T09:00:00.000Z', 'Reserved', false],
      ['7f3e2d1c0b9a-8e7d', '2030-07-20T14:00:00.000Z', '2030-07-25T09:00:00.000Z', 'Airbnb (Not available)', true],
    ]);
  });

  it('reads Vrbo and Booking.com exports with their blocked markers', () => {
    const vrbo = parseCalendar(fixture('vrbo.ics'), paris).stays;
    expect(vrbo.map((s) => [s.summary, s.blocked])).toEqual([
      ['Reserved - Maria Lopez', false],
      ['Reserved - Airbnb guest', false],
      ['Blocked', true],
    ]);
    const booking = parseCalendar(fixture('booking-com.ics'), { ...paris, timeZone: 'America/New_York' }).stays;
    expect(booking.map((s) => [s.startDate.toISOString(), s.blocked])).toEqual([
      ['2030-09-01T20:00:00.000Z', true],
      ['2030-09-10T20:00:00.000Z', true],
    ]);
  });

  it('honours VTIMEZONE, a bare IANA TZID, UTC, and floating values with DURATION', () => {
    const { stays } = parseCalendar(fixture('time-zones.ics'), paris);
    expect(stays.map((s) => [s.uid, s.startDate.toISOString(), s.endDate.toISOString()])).toEqual([
      ['tz-vtimezone-1@pms.example', '2030-07-10T19:00:00.000Z', '2030-07-12T14:00:00.000Z'],
      ['tz-iana-only-1@pms.example', '2030-07-20T06:00:00.000Z', '2030-07-22T01:00:00.000Z'],
      ['tz-utc-1@pms.example', '2030-08-01T14:00:00.000Z', '2030-08-03T09:00:00.000Z'],
      // Floating: the property's zone (Paris, UTC+2 in August).
      ['tz-floating-1@pms.example', '2030-08-10T15:00:00.000Z', '2030-08-13T07:00:00.000Z'],
    ]);
  });

  it('skips and reports bad events, keeping the good ones', () => {
    const { stays, skipped } = parseCalendar(fixture('bad-events.ics'), paris);
    expect(stays.map((s) => s.uid)).toEqual(['good-1@pms.example']);
    expect(skipped).toEqual([
      { uid: 'no-end-1@pms.example', reason: 'the event has no end (DTEND or DURATION)' },
      { uid: null, reason: 'the event has no UID' },
      { uid: 'backwards-1@pms.example', reason: expect.stringMatching(/^the event ends .* before it starts/) },
    ]);
  });

  it('skips a repeated UID and treats a cancelled event as not listed', () => {
    const text = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:a',
      'DTSTART;VALUE=DATE:20300101',
      'DTEND;VALUE=DATE:20300103',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:a',
      'DTSTART;VALUE=DATE:20300201',
      'DTEND;VALUE=DATE:20300203',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:c',
      'STATUS:CANCELLED',
      'DTSTART;VALUE=DATE:20300301',
      'DTEND;VALUE=DATE:20300303',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\n');
    const { stays, skipped } = parseCalendar(text, paris);
    expect(stays.map((s) => s.uid)).toEqual(['a']);
    expect(skipped).toEqual([{ uid: 'a', reason: 'another event of the calendar has the same UID' }]);
  });

  it('drops NUL characters (PostgreSQL text cannot hold them, so one such event would fail every sync of the feed)', () => {
    const event = (uid: string, summary: string) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      `SUMMARY:${summary}`,
      'DTSTART;VALUE=DATE:20300201',
      'DTEND;VALUE=DATE:20300203',
      'END:VEVENT',
    ];
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', ...event('n\u0000ul@pms.example', 'Res\u0000erved'), 'END:VCALENDAR'].join('\r\n');
    const { stays, skipped } = parseCalendar(text, paris);
    expect(skipped).toEqual([]);
    expect(stays.map((s) => [s.uid, s.summary])).toEqual([['nul@pms.example', 'Reserved']]);
  });

  it('skips an event whose UID is too long to be kept (an index entry holds about 2.7 kB), and reads the rest', () => {
    const event = (uid: string) => ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTART;VALUE=DATE:20300201', 'DTEND;VALUE=DATE:20300203', 'END:VEVENT'];
    const long = 'x'.repeat(UID_MAX_LENGTH + 1);
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', ...event(long), ...event('x'.repeat(UID_MAX_LENGTH)), 'END:VCALENDAR'].join('\r\n');
    const { stays, skipped } = parseCalendar(text, paris);
    expect(stays.map((s) => s.uid.length)).toEqual([UID_MAX_LENGTH]);
    expect(skipped).toEqual([{ uid: null, reason: `the event's UID is longer than ${UID_MAX_LENGTH} characters` }]);
  });

  it('refuses a body that is not a calendar, naming what came instead', () => {
    expect(() => parseCalendar('<!DOCTYPE html><html><body>Sign in</body></html>', paris)).toThrow(
      new CalendarParseError(
        `the link did not return an iCalendar file (the response starts with "<!DOCTYPE html><html><body>Sign in</body"); use the listing's iCal export link`,
      ),
    );
    expect(() => parseCalendar('', paris)).toThrow(/starts with "\(empty\)"/);
  });

  it('refuses a malformed calendar', () => {
    expect(() => parseCalendar(fixture('malformed.ics'), paris)).toThrow(/^the calendar is malformed and could not be read: /);
  });
});
