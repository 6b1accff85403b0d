import { chooseRequestId } from './request-id';

describe('chooseRequestId', () => {
  it('echoes a well-formed client id', () => {
    expect(chooseRequestId('abc-123_x.y:z+/=')).toBe('abc-123_x.y:z+/=');
    expect(chooseRequestId('a'.repeat(200))).toBe('a'.repeat(200));
  });

  it.each([
    ['empty', ''],
    ['too long', 'a'.repeat(201)],
    ['a space', 'has space'],
    ['a newline (header injection)', 'abc\nset-cookie: x'],
    ['non-ascii', 'café'],
  ])('replaces an id with %s', (_label, value) => {
    const chosen = chooseRequestId(value);
    expect(chosen).not.toBe(value);
    expect(chosen).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('generates one when none is sent or it is repeated', () => {
    expect(chooseRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
    expect(chooseRequestId(['a', 'b'])).toMatch(/^[0-9a-f-]{36}$/);
  });
});
