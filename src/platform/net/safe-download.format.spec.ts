import { formatBytes, formatSeconds } from './safe-download';

describe('message formatting', () => {
  it('formats durations in seconds', () => {
    expect(formatSeconds(10000)).toBe('10 s');
    expect(formatSeconds(1500)).toBe('1.5 s');
    expect(formatSeconds(200)).toBe('0.2 s');
  });

  it('formats sizes in binary units', () => {
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(64 * 1024)).toBe('64 KB');
    expect(formatBytes(900)).toBe('900 bytes');
    expect(formatBytes(2 * 1024 * 1024 * 1024)).toBe('2 GB');
  });
});
