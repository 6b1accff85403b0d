import { BATCH_MAX, batchClaimSize, loopEnds, mergeFrom } from './webhook-batch.rules';

describe('batch rules', () => {
  describe('batchClaimSize', () => {
    it('takes what the subscription admits here, at most BATCH_MAX', () => {
      expect(batchClaimSize({ room: 20, ratePerSecond: null })).toBe(20);
      expect(batchClaimSize({ room: 5_000, ratePerSecond: null })).toBe(BATCH_MAX);
      expect(batchClaimSize({ room: 50, ratePerSecond: null, max: 10 })).toBe(10);
    });

    it('is 0 when the subscription is saturated (its wake-up is parked)', () => {
      expect(batchClaimSize({ room: 0, ratePerSecond: null })).toBe(0);
      expect(batchClaimSize({ room: -3, ratePerSecond: 5 })).toBe(0);
    });

    it('holds about a second of turns of a paced subscription', () => {
      expect(batchClaimSize({ room: 100, ratePerSecond: 7 })).toBe(7);
      expect(batchClaimSize({ room: 3, ratePerSecond: 7 })).toBe(3);
      expect(batchClaimSize({ room: 100, ratePerSecond: 1000 })).toBe(BATCH_MAX);
    });
  });

  it('mergeFrom keeps the lower id, so a joined wake-up is never skipped', () => {
    expect(mergeFrom('whd_01B', 'whd_01A')).toBe('whd_01A');
    expect(mergeFrom('whd_01A', 'whd_01B')).toBe('whd_01A');
    expect(mergeFrom('whd_01A', 'whd_01A')).toBe('whd_01A');
  });

  describe('loopEnds', () => {
    it('ends on a short claim with no wake-up meanwhile', () => {
      expect(loopEnds(3, 100, false)).toBe(true);
      expect(loopEnds(0, 100, false)).toBe(true);
    });

    it('claims again after a full claim, or when woken while claiming (the claim may predate the commit)', () => {
      expect(loopEnds(100, 100, false)).toBe(false);
      expect(loopEnds(0, 100, true)).toBe(false);
    });
  });
});
