import { inIdOrder, returnedRows, SqlParams } from './query-result';

describe('query results', () => {
  it('takes the rows of an UPDATE/DELETE ([rows, count]) and of anything else (rows)', () => {
    expect(returnedRows([[{ id: 'a' }], 1])).toEqual([{ id: 'a' }]);
    expect(returnedRows([{ id: 'a' }])).toEqual([{ id: 'a' }]);
  });

  it('orders rows by id, byte order', () => {
    expect(inIdOrder([{ id: 'b' }, { id: 'B' }, { id: 'a' }]).map((r) => r.id)).toEqual(['B', 'a', 'b']);
  });
});

describe('SqlParams', () => {
  it('numbers each added value after the first ones', () => {
    const params = new SqlParams('acct', 10);
    expect(params.add('x')).toBe('$3');
    expect(params.add(null)).toBe('$4');
    expect(params.values).toEqual(['acct', 10, 'x', null]);
  });
});
