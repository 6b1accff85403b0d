import { paceIntervalMs, reservedStarts } from './pacer.rules';

describe('pacer rules', () => {
  it('spaces starts one interval apart at the rate', () => {
    expect(paceIntervalMs(10)).toBe(100);
    expect(paceIntervalMs(1000)).toBe(1);
    expect(reservedStarts(3, 40, 100)).toEqual([40, 140, 240]);
    expect(reservedStarts(0, 40, 100)).toEqual([]);
  });
});
