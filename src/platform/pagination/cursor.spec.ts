import { CursorCodec, dateIdKeyOf, InvalidCursorError } from './cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('test-secret');

  it('round-trips a sort key', () => {
    const cursor = codec.encode('properties', ['prop_01ABC', 3]);
    expect(codec.decode('properties', cursor)).toEqual(['prop_01ABC', 3]);
  });

  it('produces url-safe opaque strings', () => {
    expect(codec.encode('properties', ['a/b+c'])).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('rejects a cursor whose payload was changed', () => {
    const cursor = codec.encode('properties', ['prop_1']);
    const [, tag] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify(['prop_2'])).toString('base64url')}.${tag}`;
    expect(() => codec.decode('properties', forged)).toThrow(InvalidCursorError);
  });

  it('rejects a cursor minted for another list or with another secret', () => {
    const cursor = codec.encode('properties', ['prop_1']);
    expect(() => codec.decode('bookings', cursor)).toThrow(InvalidCursorError);
    expect(() => new CursorCodec('other').decode('properties', cursor)).toThrow(InvalidCursorError);
  });

  it.each(['', 'abc', 'a.b.c', '.', 'eyJ4IjoxfQ.', '!!!.???'])('rejects malformed cursor %p', (cursor) => {
    expect(() => codec.decode('properties', cursor)).toThrow(InvalidCursorError);
  });

  it('carries the invalidCursor code', () => {
    try {
      codec.decode('properties', 'garbage');
      throw new Error('expected a failure');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidCursorError);
      expect((error as InvalidCursorError).code).toBe('invalidCursor');
    }
  });
});

describe('dateIdKeyOf', () => {
  it('reads [ISO date-time, id]', () => {
    expect(dateIdKeyOf(['2030-01-01T00:00:00.000Z', 'bk_1'])).toEqual({ at: '2030-01-01T00:00:00.000Z', id: 'bk_1' });
  });

  it.each([
    [['bk_1']],
    [['not a date', 'bk_1']],
    [[1, 'bk_1']],
    [['2030-01-01T00:00:00.000Z', 2]],
    [['2030-01-01T00:00:00.000Z', 'bk_1', 'x']],
  ])('refuses %p', (key) => expect(() => dateIdKeyOf(key)).toThrow(InvalidCursorError));
});
