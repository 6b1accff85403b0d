import { columns } from './columns';

class Thing {
  id!: string;
  accountId!: string;
  size!: number;
  createdAt!: Date;
}

const THING_COLUMNS = columns<Thing>(
  { id: 'id', accountId: 'account_id', size: { column: 'byte_size', decode: (value) => Number(value) }, createdAt: 'created_at' },
  Thing,
);

describe('columns', () => {
  it('selects every column under its field name, qualified by the alias when given', () => {
    expect(THING_COLUMNS.selectList('t')).toBe(
      't.id AS "id", t.account_id AS "accountId", t.byte_size AS "size", t.created_at AS "createdAt"',
    );
    expect(THING_COLUMNS.selectList()).toBe('id AS "id", account_id AS "accountId", byte_size AS "size", created_at AS "createdAt"');
  });

  it('maps a row read with the select list to an instance of the entity, decoders applied', () => {
    const createdAt = new Date('2030-01-01T00:00:00Z');
    const thing = THING_COLUMNS.toEntity({ id: 'x_1', accountId: 'acct_1', size: '42', createdAt });
    expect(thing).toBeInstanceOf(Thing);
    expect(thing).toEqual({ id: 'x_1', accountId: 'acct_1', size: 42, createdAt });
  });

  it('keeps the whole select list and a bound toEntity for reuse', () => {
    expect(THING_COLUMNS.all).toBe(THING_COLUMNS.selectList());
    const { toEntity } = THING_COLUMNS;
    expect([{ id: 'x_1', accountId: 'a', size: '1', createdAt: null }].map(toEntity)[0]).toBeInstanceOf(Thing);
  });

  it('names the column of a field', () => {
    expect(THING_COLUMNS.column('accountId')).toBe('account_id');
    expect(THING_COLUMNS.column('size')).toBe('byte_size');
  });

  it('narrows to some fields: their select list and only them on the entity', () => {
    const narrow = THING_COLUMNS.pick(['id', 'size']);
    expect(narrow.selectList('t')).toBe('t.id AS "id", t.byte_size AS "size"');
    expect(narrow.toEntity({ id: 'x_1', size: '7' })).toEqual({ id: 'x_1', size: 7 });
  });

  it('maps to plain objects without an entity class', () => {
    const plain = columns<{ feedId: string; uid: string }>({ feedId: 'feed_id', uid: 'uid' });
    expect(plain.toEntity({ feedId: 'f', uid: 'u', other: 1 })).toStrictEqual({ feedId: 'f', uid: 'u' });
  });

  it('is checked against the entity at compile time (npm run typecheck fails otherwise)', () => {
    // @ts-expect-error a field of the entity without its column
    columns<Thing>({ id: 'id', accountId: 'account_id', size: 'size' });
    // @ts-expect-error a column for a field the entity does not have
    columns<Thing>({ id: 'id', accountId: 'account_id', size: 'size', createdAt: 'created_at', colour: 'colour' });
    // @ts-expect-error a decoder of the wrong type
    columns<Thing>({ id: 'id', accountId: 'account_id', size: { column: 'size', decode: String }, createdAt: 'created_at' });
    expect(true).toBe(true);
  });
});
