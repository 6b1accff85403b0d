import { ValidationError } from '../errors/domain-error';
import { dateWindowOf } from './date-window';

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
