import {
  afterSync,
  guestsOf,
  isBlockedSummary,
  nextSyncDelayMs,
  normaliseFeedUrl,
  sourceBookingIdOf,
  titleOf,
  zonedTimeToUtc,
} from './calendar-feed.rules';

describe('isBlockedSummary (the one list of blocked-date markers)', () => {
  it.each([
    'Not available',
    'Airbnb (Not available)',
    'Blocked',
    'CLOSED - Not available',
    'Closed – not available',
    '  closed  -  NOT   available ',
    'Unavailable',
    'Closed',
  ])('%s is blocked', (summary) => expect(isBlockedSummary(summary)).toBe(true));

  it.each(['Reserved', 'Reserved - Maria Lopez', 'Blocked by Maria', 'Not available for Jane', '', null, undefined])(
    '%s is a stay',
    (summary) => expect(isBlockedSummary(summary)).toBe(false),
  );
});

describe('booking fields from an event', () => {
  it('sourceBookingId is ical:<feedId>:<UID>, hashed when it would pass 100 characters', () => {
    const feedId = 'cal_01JDZK8D6E7F8G9H0J1K2M3N4P';
    expect(sourceBookingIdOf(feedId, 'abc@airbnb.com')).toBe(`ical:${feedId}:abc@airbnb.com`);
    const long = sourceBookingIdOf(feedId, 'x'.repeat(80));
    expect(long).toMatch(new RegExp(`^ical:${feedId}:sha256:[0-9a-f]{32}$`));
    expect(long.length).toBeLessThanOrEqual(100);
    expect(sourceBookingIdOf(feedId, 'x'.repeat(80))).toBe(long);
  });

  it('title and guest come from the summary', () => {
    expect(titleOf('  Reserved ')).toBe('Reserved');
    expect(titleOf('')).toBeNull();
    expect(titleOf(null)).toBeNull();
    expect(titleOf('a'.repeat(300))).toHaveLength(200);
    expect(guestsOf('Reserved - Maria Lopez')).toEqual([{ sourceId: 'ical-guest', firstName: 'Reserved - Maria Lopez' }]);
    expect(guestsOf(null)).toEqual([{ sourceId: 'ical-guest', firstName: 'Guest' }]);
    expect(guestsOf('   ')).toEqual([{ sourceId: 'ical-guest', firstName: 'Guest' }]);
  });

  it('webcal links are https', () => {
    expect(normaliseFeedUrl('webcal://www.airbnb.com/calendar/ical/1.ics?s=x')).toBe('https://www.airbnb.com/calendar/ical/1.ics?s=x');
    expect(normaliseFeedUrl('https://a.example/x')).toBe('https://a.example/x');
  });
});

describe('zonedTimeToUtc', () => {
  const wall = (iso: string) => {
    const [d, t] = iso.split('T');
    const [year, month, day] = d.split('-').map(Number);
    const [hour, minute] = t.split(':').map(Number);
    return { year, month, day, hour, minute, second: 0 };
  };
  it('applies the zone offset of that date (summer and winter)', () => {
    expect(zonedTimeToUtc(wall('2030-07-01T16:00'), 'Europe/Paris').toISOString()).toBe('2030-07-01T14:00:00.000Z');
    expect(zonedTimeToUtc(wall('2030-01-01T16:00'), 'Europe/Paris').toISOString()).toBe('2030-01-01T15:00:00.000Z');
    expect(zonedTimeToUtc(wall('2030-07-01T11:00'), 'America/Los_Angeles').toISOString()).toBe('2030-07-01T18:00:00.000Z');
    expect(zonedTimeToUtc(wall('2030-07-01T16:00'), 'UTC').toISOString()).toBe('2030-07-01T16:00:00.000Z');
    expect(zonedTimeToUtc(wall('2030-07-01T16:00'), 'Asia/Kolkata').toISOString()).toBe('2030-07-01T10:30:00.000Z');
  });
  it('moves a time in a spring-forward gap past it and takes the first of a repeated hour', () => {
    // Paris, 2030-03-31: 02:00 → 03:00.
    expect(zonedTimeToUtc(wall('2030-03-31T02:30'), 'Europe/Paris').toISOString()).toBe('2030-03-31T01:30:00.000Z');
    // Paris, 2030-10-27: 03:00 → 02:00; 02:30 happens twice (00:30Z and 01:30Z).
    expect(zonedTimeToUtc(wall('2030-10-27T02:30'), 'Europe/Paris').toISOString()).toBe('2030-10-27T00:30:00.000Z');
  });
});

describe('sync bookkeeping', () => {
  it('failing at once; calendarFeed.failing on the third failure in a row only', () => {
    let state = afterSync({ status: 'pending', consecutiveFailures: 0 }, false);
    expect(state).toEqual({ status: 'failing', consecutiveFailures: 1 });
    state = afterSync(state, false);
    expect(state).toEqual({ status: 'failing', consecutiveFailures: 2 });
    state = afterSync(state, false);
    expect(state).toEqual({ status: 'failing', consecutiveFailures: 3, event: 'calendarFeed.failing' });
    expect(afterSync(state, false)).toEqual({ status: 'failing', consecutiveFailures: 4 });
  });
  it('calendarFeed.recovered only after an announced failure', () => {
    expect(afterSync({ status: 'failing', consecutiveFailures: 3 }, true)).toEqual({
      status: 'ok',
      consecutiveFailures: 0,
      event: 'calendarFeed.recovered',
    });
    expect(afterSync({ status: 'failing', consecutiveFailures: 2 }, true)).toEqual({ status: 'ok', consecutiveFailures: 0 });
    expect(afterSync({ status: 'pending', consecutiveFailures: 0 }, true)).toEqual({ status: 'ok', consecutiveFailures: 0 });
  });
  it('the next sync comes within the last tenth of the interval', () => {
    expect(nextSyncDelayMs(900_000, 0)).toBe(900_000);
    expect(nextSyncDelayMs(900_000, 0.5)).toBe(855_000);
    expect(nextSyncDelayMs(900_000, 0.999)).toBe(900_000 - 89_910);
  });
});
