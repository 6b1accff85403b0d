import { plainToInstance } from 'class-transformer';
import { IsString, validateSync } from 'class-validator';
import { isCountryCode, isTimeZone, IsStringOrStringArray, OptionalNotNull, parseDateTime } from './validators';

describe('isCountryCode', () => {
  it.each(['US', 'FR', 'GB', 'XK'])('accepts %s', (code) => expect(isCountryCode(code)).toBe(true));
  it.each(['us', 'Us', 'XX', 'USA', 'U', '', 12, null])('refuses %p', (code) => expect(isCountryCode(code)).toBe(false));
});

describe('isTimeZone', () => {
  it.each(['Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'Etc/GMT+5'])(
    'accepts %s',
    (zone) => expect(isTimeZone(zone)).toBe(true),
  );
  it.each(['Mars/Base', 'europe/paris', '+01:00', 'Z', '', 'Europe/Paris ', 42, null])('refuses %p', (zone) =>
    expect(isTimeZone(zone)).toBe(false),
  );
});

describe('IsStringOrStringArray', () => {
  class Holder {
    @IsStringOrStringArray({ maxLength: 5, maxItems: 2 })
    value!: unknown;
  }
  const ok = (value: unknown) => validateSync(plainToInstance(Holder, { value })).length === 0;

  it('accepts a short string or 1..maxItems short strings', () => {
    expect(ok('')).toBe(true);
    expect(ok('abcde')).toBe(true);
    expect(ok(['a'])).toBe(true);
    expect(ok(['abcde', 'fghij'])).toBe(true);
  });

  it('refuses long strings, empty or long arrays, and other types', () => {
    expect(ok('abcdef')).toBe(false);
    expect(ok([])).toBe(false);
    expect(ok(['a', 'b', 'c'])).toBe(false);
    expect(ok(['abcdef'])).toBe(false);
    expect(ok([1])).toBe(false);
    expect(ok(5)).toBe(false);
    expect(ok({})).toBe(false);
    expect(ok(null)).toBe(false);
  });
});

describe('OptionalNotNull', () => {
  class Patch {
    @OptionalNotNull()
    @IsString()
    name?: string;
  }
  const failures = (body: object) => validateSync(plainToInstance(Patch, body)).map((e) => Object.keys(e.constraints ?? {}));

  it('skips an absent field and validates anything sent, null included', () => {
    expect(failures({})).toEqual([]);
    expect(failures({ name: 'x' })).toEqual([]);
    expect(failures({ name: null })).toEqual([['isString']]);
    expect(failures({ name: 5 })).toEqual([['isString']]);
  });
});

describe('parseDateTime', () => {
  it.each([
    ['2025-06-01T15:00:00Z', '2025-06-01T15:00:00.000Z'],
    ['2025-06-01T17:00:00+02:00', '2025-06-01T15:00:00.000Z'],
    ['2025-06-01T10:30-04:30', '2025-06-01T15:00:00.000Z'],
    ['2025-06-01t15:00:00.5z', '2025-06-01T15:00:00.500Z'],
    ['2025-06-01T15:00:00.123456789Z', '2025-06-01T15:00:00.123Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T23:59:59.999Z', '2000-02-29T23:59:59.999Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ['0001-01-01T00:00:00-01:00', '0001-01-01T01:00:00.000Z'],
    ['9999-12-31T23:59:59.999+00:00', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T22:59:59+01:00', '9999-12-31T21:59:59.000Z'],
  ])('parses %s as %s', (text, iso) => expect(parseDateTime(text)?.toISOString()).toBe(iso));

  it.each([
    '2025-06-01',
    '2025-06-01T15:00:00',
    '2025-06-01 15:00:00Z',
    '2025-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2025-04-31T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-06-00T00:00:00Z',
    '2025-06-01T24:00:00Z',
    '2025-06-01T23:60:00Z',
    '2025-06-01T23:59:60Z',
    '2025-06-01T15:00:00+24:00',
    '2025-06-01T15:00:00+0200',
    '0000-01-01T00:00:00Z',
    // In range as written, out of it in UTC (toISOString would answer +010000-… or 0000-…).
    '9999-12-31T23:59:00-10:00',
    '0001-01-01T00:00:00+00:01',
    '+02025-06-01T15:00:00Z',
    '2025-06-01T15:00:00.Z',
    ' 2025-06-01T15:00:00Z',
    '',
    1748790000000,
    null,
  ])('refuses %p', (value) => expect(parseDateTime(value)).toBeUndefined());
});
