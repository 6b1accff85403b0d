import { InvalidStateError, ValidationError } from '../../platform/errors/domain-error';
import { thrown } from '../../platform/errors/thrown';
import { BOOKING_STATUS, isCancelled, statusAfterDateChange, stayOf, storedGuests } from './booking.rules';

describe('stayOf', () => {
  it('parses both dates, zones included', () => {
    expect(stayOf('2030-01-01T17:00:00+02:00', '2030-01-03T10:00:00Z')).toEqual({
      startDate: new Date('2030-01-01T15:00:00Z'),
      endDate: new Date('2030-01-03T10:00:00Z'),
    });
  });

  it('refuses a check-out at or before the check-in, at #/endDate', () => {
    for (const [start, end] of [
      ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00Z'],
      ['2030-01-01T12:00:00+02:00', '2030-01-01T10:00:00Z'],
      ['2030-01-02T10:00:00Z', '2030-01-01T10:00:00Z'],
    ]) {
      const error = thrown(() => stayOf(start, end));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).extras.errors).toEqual([
        { pointer: '#/endDate', detail: expect.stringContaining('after startDate') },
      ]);
    }
    expect(stayOf('2030-01-01T10:00:00.000Z', '2030-01-01T10:00:00.001Z').endDate.toISOString()).toBe('2030-01-01T10:00:00.001Z');
  });
});

describe('status table (spec 3.1)', () => {
  it('a date change leads to 2 from 1 and 2', () => {
    expect(statusAfterDateChange({ id: 'bk_1', status: BOOKING_STATUS.created })).toBe(2);
    expect(statusAfterDateChange({ id: 'bk_1', status: BOOKING_STATUS.datesChanged })).toBe(2);
  });

  it('a cancelled booking cannot change dates: invalidState naming its status', () => {
    const error = thrown(() => statusAfterDateChange({ id: 'bk_1', status: BOOKING_STATUS.cancelled }));
    expect(error).toBeInstanceOf(InvalidStateError);
    expect(error.message).toContain('cancelled (status 3)');
    expect((error as InvalidStateError).extras).toEqual({ bookingId: 'bk_1', status: 3 });
  });

  it('isCancelled', () => {
    expect([1, 2, 3].map((status) => isCancelled({ status }))).toEqual([false, false, true]);
  });
});

describe('storedGuests', () => {
  it('keeps every field written, leaves out null and absent ones, in the spec order', () => {
    const stored = storedGuests([
      { sourcePictureUrl: 'https://x.test/a.png', lastName: 'L', firstName: 'F', sourceId: 's' },
      { sourceId: 's2', firstName: 'G', lastName: null, sourcePictureUrl: null },
    ]);
    expect(JSON.stringify(stored)).toBe(
      JSON.stringify([
        { sourceId: 's', firstName: 'F', lastName: 'L', sourcePictureUrl: 'https://x.test/a.png' },
        { sourceId: 's2', firstName: 'G' },
      ]),
    );
  });
});
