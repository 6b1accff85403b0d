import { inKeyOrder } from './read-shape';

describe('inKeyOrder', () => {
  it('keeps the keys given, in that order, leaving out undefined ones and any other key', () => {
    const stored = { value: 'v', extra: 1, label: 'l', group: undefined } as { label: string; value: string; group?: string };
    const shape = inKeyOrder(stored, ['label', 'value', 'group']);
    expect(Object.keys(shape)).toEqual(['label', 'value']);
    expect(JSON.stringify(shape)).toBe('{"label":"l","value":"v"}');
  });
});
