import { sniffImageType } from './image-type';

const bytes = (...values: Array<number | string>) =>
  Buffer.concat(values.map((v) => (typeof v === 'string' ? Buffer.from(v, 'latin1') : Buffer.from([v]))));

describe('sniffImageType', () => {
  it.each([
    ['jpeg', bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10), 'image/jpeg'],
    ['png', bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d), 'image/png'],
    ['gif87a', bytes('GIF87a', 1, 0), 'image/gif'],
    ['gif89a', bytes('GIF89a', 1, 0), 'image/gif'],
    ['webp', bytes('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 '), 'image/webp'],
  ])('recognises %s', (_name, input, type) => {
    expect(sniffImageType(input)).toBe(type);
  });

  it.each([
    ['empty', bytes()],
    ['html', bytes('<!doctype html><html>')],
    ['truncated jpeg', bytes(0xff, 0xd8)],
    ['truncated png', bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a)],
    ['png with a wrong byte', bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0b)],
    ['RIFF that is not webp', bytes('RIFF', 0, 0, 0, 0, 'WAVEfmt ')],
    ['GIF90a', bytes('GIF90a')],
    ['svg', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['pdf', bytes('%PDF-1.7')],
  ])('refuses %s', (_name, input) => {
    expect(sniffImageType(input)).toBeUndefined();
  });

  it('reads a view into a larger buffer at its own offset', () => {
    const whole = bytes('xx', 0xff, 0xd8, 0xff, 0xe0);
    expect(sniffImageType(whole.subarray(2))).toBe('image/jpeg');
    expect(sniffImageType(new Uint8Array(whole.buffer, whole.byteOffset + 1, 4))).toBeUndefined();
  });
});
