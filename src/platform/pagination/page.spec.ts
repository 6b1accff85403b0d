import { toPage, unpaginated } from './page';

describe('toPage', () => {
  const id = (n: number) => n;
  const cursor = (n: number) => `c${n}`;

  it('says there is more when the extra row came back, and points at the last row shown', () => {
    expect(toPage([1, 2, 3], 2, id, cursor)).toEqual({ data: [1, 2], nextCursor: 'c2', hasMore: true });
  });

  it('ends the list when the extra row is missing', () => {
    expect(toPage([1, 2], 2, id, cursor)).toEqual({ data: [1, 2], nextCursor: null, hasMore: false });
    expect(toPage([], 2, id, cursor)).toEqual({ data: [], nextCursor: null, hasMore: false });
  });

  it('wraps unpaginated lists the same way', () => {
    expect(unpaginated(['a'])).toEqual({ data: ['a'], nextCursor: null, hasMore: false });
  });
});
