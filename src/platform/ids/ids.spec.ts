import { idKind, idKinds, isIdOf, newId, pooledRandom } from './ids';

const KINDS = idKinds({ event: 'evt', delivery: 'whd', subscription: 'sub', property: 'prop' });

describe('ids', () => {
  it('prefixes ids with the resource kind', () => {
    expect(newId(KINDS.event)).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(newId(KINDS.delivery)).toMatch(/^whd_/);
    expect(newId(KINDS.subscription)).toMatch(/^sub_/);
  });

  it('mints ids that sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId(KINDS.property));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('recognises ids of a kind and rejects others', () => {
    expect(isIdOf(KINDS.event, newId(KINDS.event))).toBe(true);
    expect(isIdOf(KINDS.event, newId(KINDS.property))).toBe(false);
    expect(isIdOf(KINDS.event, 'evt_nope')).toBe(false);
    expect(isIdOf(KINDS.event, 42)).toBe(false);
  });

  it('names the kinds a module declares by their key', () => {
    expect(KINDS.delivery).toEqual(idKind('whd'));
    expect(isIdOf(idKind('wh'), newId(KINDS.delivery))).toBe(false);
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
