import { ID_PREFIX, isIdOf, newId } from './ids';

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
});
