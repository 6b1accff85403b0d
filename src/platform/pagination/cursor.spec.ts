import { CursorCodec, InvalidCursorError } from './cursor';

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
