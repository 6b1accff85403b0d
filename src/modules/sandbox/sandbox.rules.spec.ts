import { deletionOrder } from './sandbox.rules';

describe('sandbox rules: deletion order', () => {
  const names = (tables: { table: string }[]) => tables.map((t) => t.table);

  it('deletes the rows that reference others first, keeping the declared order otherwise', () => {
    const tables = [{ table: 'properties' }, { table: 'bookings' }, { table: 'events' }, { table: 'job_requests' }];
    const keys = [
      { child: 'bookings', parent: 'properties' },
      { child: 'job_requests', parent: 'properties' },
      { child: 'job_requests', parent: 'bookings' },
      { child: 'bookings', parent: 'accounts' },
      { child: 'properties', parent: 'properties' },
    ];
    expect(names(deletionOrder(tables, keys))).toEqual(['events', 'job_requests', 'bookings', 'properties']);
  });

  it('refuses a cycle', () => {
    const keys = [
      { child: 'a', parent: 'b' },
      { child: 'b', parent: 'a' },
    ];
    expect(() => deletionOrder([{ table: 'a' }, { table: 'b' }], keys)).toThrow(/cycle/);
  });
});
