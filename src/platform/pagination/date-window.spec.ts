import { ValidationError } from '../errors/domain-error';
import { dateWindowOf, orderedInstants } from './date-window';

describe('dateWindowOf', () => {
  it('parses both bounds, an instant included', () => {
    expect(dateWindowOf('2025-06-01T00:00:00Z', '2025-06-08T00:00:00+02:00')).toEqual({
      from: new Date('2025-06-01T00:00:00Z'),
      to: new Date('2025-06-07T22:00:00Z'),
    });
    const instant = dateWindowOf('2025-06-01T00:00:00Z', '2025-06-01T02:00:00+02:00');
    expect(instant.from.getTime()).toBe(instant.to.getTime());
  });

  it('refuses dateFrom after dateTo at #/dateTo', () => {
    try {
      dateWindowOf('2025-06-01T00:00:00.001Z', '2025-06-01T00:00:00Z');
      throw new Error('expected a failure');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).extras.errors).toEqual([{ pointer: '#/dateTo', detail: expect.stringContaining('dateFrom') }]);
    }
  });
});

describe('orderedInstants', () => {
  it('refuses the same instant unless allowed, at the second field, naming both', () => {
    const same = ['2025-06-01T00:00:00Z', '2025-06-01T02:00:00+02:00'];
    expect(orderedInstants({ dateFrom: same[0] }, { dateTo: same[1] }, 'sameAllowed')).toEqual([new Date(same[0]), new Date(same[0])]);
    try {
      orderedInstants({ startDate: same[0] }, { endDate: same[1] }, 'sameRefused');
      throw new Error('expected a failure');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).extras.errors).toEqual([
        { pointer: '#/endDate', detail: 'endDate (2025-06-01T00:00:00.000Z) must be after startDate (2025-06-01T00:00:00.000Z)' },
      ]);
    }
  });
});
