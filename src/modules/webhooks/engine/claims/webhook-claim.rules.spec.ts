import { whyUnclaimed } from './webhook-claim.rules';

describe('whyUnclaimed', () => {
  const pending = { status: 'pending', attemptCount: 2 };

  it('says gone, finished, stale or in flight, as the row is now', () => {
    expect(whyUnclaimed(undefined, 2)).toBe('missing');
    expect(whyUnclaimed({ ...pending, status: 'delivered' }, 2)).toBe('finished');
    expect(whyUnclaimed(pending, 1)).toBe('stale');
    expect(whyUnclaimed({ ...pending, inFlight: true, inOrder: true }, 2)).toBe('in_flight');
  });

  it('says waiting for a delivery in an order that is not in flight: its turn has not come (issue 31)', () => {
    expect(whyUnclaimed({ ...pending, inFlight: false, inOrder: true }, 2)).toBe('waiting');
    expect(whyUnclaimed({ ...pending, inFlight: false, inOrder: false }, 2)).toBe('in_flight');
  });
});
