import { ID_PREFIX, isIdOf, newId, pooledRandom } from './ids';

describe('ids', () => {
  it('prefixes ids with the resource kind', () => {
    expect(newId('event')).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(newId('delivery')).toMatch(/^whd_/);
    expect(newId('subscription')).toMatch(/^sub_/);
  });

  it('mints ids that sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId('property'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('recognises ids of a kind and rejects others', () => {
    expect(isIdOf('event', newId('event'))).toBe(true);
    expect(isIdOf('event', newId('property'))).toBe(false);
    expect(isIdOf('event', 'evt_nope')).toBe(false);
    expect(isIdOf('event', 42)).toBe(false);
  });

  it('uses a distinct prefix per kind', () => {
    const prefixes = Object.values(ID_PREFIX);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it("draws randomness in [0, 1) from a pool it refills, spreading over all of ulid's 32 characters", () => {
    const random = pooledRandom(16);
    const draws = Array.from({ length: 32 * 200 }, () => random());
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    const perCharacter = new Array<number>(32).fill(0);
    for (const x of draws) perCharacter[Math.floor(x * 32)]++;
    // 200 expected per character; a pool that stopped refilling would repeat 16 values and leave most at 0.
    expect(Math.min(...perCharacter)).toBeGreaterThan(100);
    expect(new Set(draws.slice(0, 16))).not.toEqual(new Set(draws.slice(16, 32)));
  });
});
