import { concerns, dueTimes, replayWindow, selectForReplay } from './webhook-replay.rules';

const event = (id: string, eventName = 'property.create', clientRequestId = 'idem') => ({ id, eventName, clientRequestId });

describe('selectForReplay', () => {
  const base = { subscriptionId: 'sub_a', eventFilters: ['property.*', 'webhook.*'], onlyFailed: false };

  it('emits the matching events in order, skipping those whose delivery is pending', () => {
    const events = [event('e1'), event('e2', 'booking.create'), event('e3'), event('e4')];
    const statuses = new Map([
      ['e3', 'pending' as const],
      ['e4', 'delivered' as const],
    ]);
    expect(selectForReplay(events, { ...base, statuses })).toEqual({ emit: [events[0], events[3]], skipped: 1 });
  });

  it('with onlyFailed, emits only failed or never-delivered events', () => {
    const events = [event('e1'), event('e2'), event('e3'), event('e4')];
    const statuses = new Map([
      ['e1', 'failed_permanent' as const],
      ['e2', 'delivered' as const],
      ['e3', 'pending' as const],
    ]);
    expect(selectForReplay(events, { ...base, onlyFailed: true, statuses })).toEqual({ emit: [events[0], events[3]], skipped: 2 });
  });

  it('never replays an operational event to the subscription it is about', () => {
    expect(concerns(event('e1', 'webhook.disabled', 'sub_a'), base)).toBe(false);
    expect(concerns(event('e2', 'webhook.disabled', 'sub_b'), base)).toBe(true);
  });
});

describe('dueTimes', () => {
  it('spaces the deliveries at the rate', () => {
    expect(dueTimes(4, 10, 1000)).toEqual([1000, 1100, 1200, 1300]);
    expect(dueTimes(0, 10, 1000)).toEqual([]);
  });
});

describe('replayWindow', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  it('ends at until, or now, whichever comes first', () => {
    const since = new Date('2026-05-31T00:00:00Z');
    expect(replayWindow(since, undefined, now, 90)).toEqual({ since, until: now });
    expect(replayWindow(since, new Date('2026-07-01T00:00:00Z'), now, 90)).toEqual({ since, until: now });
    const until = new Date('2026-05-31T12:00:00Z');
    expect(replayWindow(since, until, now, 90)).toEqual({ since, until });
  });
  it('refuses an empty window and a since older than the retention', () => {
    expect(replayWindow(now, undefined, now, 90)).toEqual({ problem: 'untilNotAfterSince' });
    expect(replayWindow(new Date('2026-05-31T00:00:00Z'), new Date('2026-05-30T00:00:00Z'), now, 90)).toEqual({
      problem: 'untilNotAfterSince',
    });
    expect(replayWindow(new Date('2026-02-01T00:00:00Z'), undefined, now, 90)).toEqual({ problem: 'sinceBeforeRetention' });
  });
});
