import { ValidationError } from '../../platform/errors/domain-error';
import { thrown as thrownAny } from '../../platform/errors/thrown';
import { assertChecklistsOfProperty, automaticReminderFor, storedJobRequestSettings, storedJobTime } from './reminder.rules';

const thrown = (fn: () => unknown) => thrownAny<ValidationError>(fn);

describe('storedJobTime', () => {
  it('keeps the keys sent, times in UTC to the millisecond, in the spec order', () => {
    const stored = storedJobTime(
      { durationInMinutes: 15, endTime: '2030-01-01T12:00:00+02:00', startTime: '2030-01-01T09:00:00.123456Z', type: 'fixed' },
      '#/time',
    );
    expect(JSON.stringify(stored)).toBe(
      JSON.stringify({ type: 'fixed', startTime: '2030-01-01T09:00:00.123Z', endTime: '2030-01-01T10:00:00.000Z', durationInMinutes: 15 }),
    );
    expect(storedJobTime({ type: 'flexible', startTime: '2030-01-01T09:00:00Z', endTime: null, durationInHours: null }, '#/t')).toEqual({
      type: 'flexible',
      startTime: '2030-01-01T09:00:00.000Z',
    });
  });

  it('refuses an endTime not after startTime at <pointer>/endTime', () => {
    const error = thrown(() =>
      storedJobTime({ type: 'fixed', startTime: '2030-01-01T10:00:00Z', endTime: '2030-01-01T12:00:00+02:00' }, '#/x/time'),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.extras.errors).toEqual([{ pointer: '#/x/time/endTime', detail: expect.stringContaining('must be after startTime') }]);
  });
});

describe('storedJobRequestSettings', () => {
  it('drops null members and normalises the time', () => {
    expect(
      storedJobRequestSettings({
        offeredPrice: 0,
        offeredPriceCurrency: null,
        message: 'abc',
        time: { type: 'fixed', startTime: '2030-01-01T10:00:00+01:00' },
      }),
    ).toEqual({ time: { type: 'fixed', startTime: '2030-01-01T09:00:00.000Z' }, offeredPrice: 0, message: 'abc' });
    expect(storedJobRequestSettings({})).toEqual({});
  });

  it('reports a bad endTime under #/jobRequestSettings/time', () => {
    const error = thrown(() =>
      storedJobRequestSettings({ time: { type: 'fixed', startTime: '2030-01-01T10:00:00Z', endTime: '2030-01-01T09:00:00Z' } }),
    );
    expect(error.extras.errors).toEqual([{ pointer: '#/jobRequestSettings/time/endTime', detail: expect.any(String) }]);
  });
});

describe('assertChecklistsOfProperty', () => {
  it('accepts checklists of the property, refuses each other one at its index', () => {
    expect(() => assertChecklistsOfProperty('prop_a', [{ checklistId: 'chk_1', propertyId: 'prop_a' }])).not.toThrow();
    expect(() => assertChecklistsOfProperty('prop_a', [])).not.toThrow();
    const error = thrown(() =>
      assertChecklistsOfProperty('prop_a', [
        { checklistId: 'chk_1', propertyId: 'prop_a' },
        { checklistId: 'chk_2', propertyId: 'prop_b' },
      ]),
    );
    expect(error.extras.errors).toEqual([
      { pointer: '#/checklists/1/checklistId', detail: expect.stringContaining('chk_2 belongs to property prop_b') },
    ]);
  });
});

describe('automaticReminderFor', () => {
  it('is the turnover at check-out: actionable, tied by sourceBookingId, automatic', () => {
    const endDate = new Date('2030-01-04T10:00:00Z');
    expect(automaticReminderFor({ propertyId: 'prop_a', sourceBookingId: 'ext-1', endDate })).toEqual({
      propertyId: 'prop_a',
      title: 'Turnover after booking ext-1',
      date: endDate,
      sourceBookingId: 'ext-1',
      sourceId: null,
      actionable: true,
      checklistIds: [],
      jobRequestSettings: null,
      automatic: true,
    });
  });
});
