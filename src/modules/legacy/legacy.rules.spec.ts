import { batchShapeIssues, deprecationHeaders, failureErrors, isRetired, LegacyRecordShape, resultIdOf } from './legacy.rules';

describe('legacy rules', () => {
  it('builds the deprecation headers of spec 9.2 from the sunset and the docs link', () => {
    expect(deprecationHeaders(new Date('2027-04-07T00:00:00Z'), 'https://docs.example/legacy')).toEqual({
      Deprecation: '@1791504000',
      Sunset: 'Wed, 07 Apr 2027 00:00:00 GMT',
      Link: '<https://docs.example/legacy>; rel="deprecation"',
    });
  });

  it('is retired from the sunset instant on', () => {
    const sunset = new Date('2027-04-07T00:00:00Z');
    expect(isRetired(new Date('2027-04-06T23:59:59.999Z'), sunset)).toBe(false);
    expect(isRetired(sunset, sunset)).toBe(true);
  });

  const rec = (extra: Partial<LegacyRecordShape>): LegacyRecordShape => ({
    clientRequestId: 'a',
    entity: 'property',
    action: 'create',
    data: {},
    ...extra,
  });

  it('accepts the three well-formed record kinds', () => {
    expect(
      batchShapeIssues([
        rec({ clientRequestId: 'c' }),
        rec({ clientRequestId: 'u', action: 'update', data: undefined, entityId: 'prop_1', changes: {} }),
        rec({ clientRequestId: 'd', action: 'delete', data: undefined, entityId: 'prop_1' }),
      ]),
    ).toEqual([]);
  });

  it('names each missing, extra, unoffered or repeated field by pointer', () => {
    expect(
      batchShapeIssues([
        rec({ data: undefined, entityId: 'x' }),
        rec({ clientRequestId: 'b', action: 'update', data: {} }),
        rec({ clientRequestId: 'c', entity: 'reminder', action: 'update', data: undefined, entityId: 'r', changes: {} }),
        rec({}),
      ]).map((issue) => issue.pointer),
    ).toEqual([
      '#/records/0/entityId',
      '#/records/0/data',
      '#/records/1/entityId',
      '#/records/1/data',
      '#/records/1/changes',
      '#/records/2/action',
      '#/records/3/clientRequestId',
    ]);
  });

  it("keeps a problem's errors, or names the root with its detail", () => {
    const errors = [{ pointer: '#/name', detail: 'name is required' }];
    expect(failureErrors({ message: 'Invalid', extras: { errors } })).toEqual(errors);
    expect(failureErrors({ message: 'Booking bk_1 was not found', extras: {} })).toEqual([
      { pointer: '#', detail: 'Booking bk_1 was not found' },
    ]);
  });

  it("takes the resource id from the Platform response, else the record's entityId", () => {
    expect(resultIdOf('booking', { bookingId: 'bk_1' }, undefined)).toBe('bk_1');
    expect(resultIdOf('property', undefined, 'prop_1')).toBe('prop_1');
    expect(resultIdOf('reminder', undefined, undefined)).toBeNull();
  });
});
