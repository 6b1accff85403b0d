import { ApiClient, clientFor, createAccount, startApp, TestApp } from '../support/app';
import { at, createBooking, listAll } from '../support/bookings';
import { expectProblem } from '../support/problem';
import { createProperty, pointersOf } from '../support/properties';

/** GET /v1/bookings: the overlap window, its edges, filters, order, cursors. Each test uses its own account. */
describe('bookings list', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  async function freshAccount(): Promise<{ api: ApiClient; propertyId: string }> {
    const api = clientFor(t, await createAccount(t));
    const { propertyId } = await createProperty(api);
    return { api, propertyId };
  }

  const ids = (rows: Array<{ bookingId: string }>) => rows.map((r) => r.bookingId);
  const window = (from: string, to: string, extra = '') => `dateFrom=${encodeURIComponent(from)}&dateTo=${encodeURIComponent(to)}${extra}`;

  it('returns every booking overlapping the window: arriving before dateTo and departing after dateFrom', async () => {
    const { api, propertyId } = await freshAccount();
    const stay = (start: number | string, end: number | string) =>
      createBooking(api, propertyId, {
        startDate: typeof start === 'number' ? at(start) : start,
        endDate: typeof end === 'number' ? at(end) : end,
      });
    const ms = (iso: string, delta: number) => new Date(Date.parse(iso) + delta).toISOString();
    // Window: day 10 to day 20.
    const before = await stay(1, 5);
    const endsAtFrom = await stay(5, 10); // departs exactly at dateFrom: not overlapping
    const endsJustAfterFrom = await stay(5, ms(at(10), 1)); // one millisecond into the window
    const spanning = await stay(8, 25); // checked in before the window, still there: included
    const inside = await stay(12, 15);
    const startsJustBeforeTo = await stay(ms(at(20), -1), 22);
    const startsAtTo = await stay(20, 22); // arrives exactly at dateTo: not overlapping
    const after = await stay(21, 23);
    const rows = await listAll(api, window(at(10), at(20)));
    expect(ids(rows)).toEqual(ids([endsJustAfterFrom, spanning, inside, startsJustBeforeTo]));
    for (const excluded of [before, endsAtFrom, startsAtTo, after]) expect(ids(rows)).not.toContain(excluded.bookingId);
  });

  it('an instant (dateFrom = dateTo) lists who is in house then; dateFrom after dateTo is a 400', async () => {
    const { api, propertyId } = await freshAccount();
    const inHouse = await createBooking(api, propertyId, { startDate: at(1), endDate: at(3) });
    await createBooking(api, propertyId, { startDate: at(2), endDate: at(4) }); // arrives exactly then: not yet in house
    expect(ids(await listAll(api, window(at(2), at(2))))).toEqual([inHouse.bookingId]);
    const res = await api.get(`/v1/bookings?${window(at(2), at(1))}`).expect(400);
    expect(pointersOf(res)).toEqual(['#/dateTo']);
  });

  it('orders by startDate then bookingId, stays under way at dateFrom first; cancelled ones are listed unless filtered', async () => {
    const { api, propertyId } = await freshAccount();
    const other = await createProperty(api);
    const b3 = await createBooking(api, propertyId, { startDate: at(12), endDate: at(14) });
    const b1 = await createBooking(api, other.propertyId, { startDate: at(5), endDate: at(30) });
    const tieA = await createBooking(api, propertyId, { startDate: at(15), endDate: at(16) });
    const tieB = await createBooking(api, other.propertyId, { startDate: at(15), endDate: at(17) });
    const b0 = await createBooking(api, propertyId, { startDate: at(2), endDate: at(11) });
    const changed = await createBooking(api, other.propertyId, { startDate: at(18), endDate: at(19) });
    await api
      .patch(`/v1/bookings/${changed.bookingId}/dates`)
      .send({ startDate: at(13), endDate: at(19) })
      .expect(200);
    await api.post(`/v1/bookings/${b3.bookingId}/cancel`).expect(200);
    const all = await listAll(api, window(at(10), at(20)));
    expect(ids(all)).toEqual(ids([b0, b1, b3, changed, tieA, tieB]));
    expect(tieA.bookingId < tieB.bookingId).toBe(true);
    expect(all.find((b) => b.bookingId === b3.bookingId)?.status).toBe(3);
    expect(ids(await listAll(api, window(at(10), at(20), '&status=1')))).toEqual(ids([b0, b1, tieA, tieB]));
    expect(ids(await listAll(api, window(at(10), at(20), '&status=2')))).toEqual(ids([changed]));
    expect(ids(await listAll(api, window(at(10), at(20), '&status=3')))).toEqual(ids([b3]));
    expect(ids(await listAll(api, window(at(10), at(20), `&propertyId=${propertyId}`)))).toEqual(ids([b0, b3, tieA]));
    expect(ids(await listAll(api, window(at(10), at(20), `&propertyId=${other.propertyId}&status=1`)))).toEqual(ids([b1, tieB]));
    expect(await listAll(api, window(at(10), at(20), '&propertyId=prop_01ARZ3NDEKTSV4RRFFQ69G5FAV'))).toEqual([]);
  });

  it('pages with a cursor through both halves of the window, with every limit from 1 to past the end', async () => {
    const { api, propertyId } = await freshAccount();
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await createBooking(api, propertyId, { startDate: at(i * 2), endDate: at(i * 2 + 9) }));
    // Window from day 7: the stays from days 0, 2, 4, 6 are under way (part one), 8, 10, 12 start inside (part two).
    const expected = ids(made);
    for (const limit of [1, 2, 3, 4, 6, 7, 8]) expect(ids(await listAll(api, window(at(7), at(30)), limit))).toEqual(expected);
    const first = await api.get(`/v1/bookings?${window(at(7), at(30))}&limit=7`).expect(200);
    expect(first.body).toEqual({ data: expect.any(Array), nextCursor: null, hasMore: false });
    const page = await api.get(`/v1/bookings?${window(at(7), at(30))}&limit=3`).expect(200);
    expect(page.body.hasMore).toBe(true);
    expect(typeof page.body.nextCursor).toBe('string');
  });

  it('pagination under concurrent inserts: every booking that existed throughout is listed exactly once, in order', async () => {
    const { api, propertyId } = await freshAccount();
    const existing = [];
    for (let i = 0; i < 30; i++)
      existing.push(await createBooking(api, propertyId, { startDate: at(10 + i / 4), endDate: at(12 + i / 4) }));
    const seen: Array<{ bookingId: string; startDate: string }> = [];
    let cursor: string | undefined;
    let inserted = 0;
    for (;;) {
      const res = await api.get(`/v1/bookings?${window(at(9), at(30))}&limit=4${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      seen.push(...res.body.data);
      // While paging, other bookings arrive all over the window: before, at and after the cursor.
      await Promise.all(
        [9.5, 10 + inserted / 4, 12, 17].map((day) => createBooking(api, propertyId, { startDate: at(day), endDate: at(day + 1) })),
      );
      inserted++;
      if (!res.body.hasMore) break;
      cursor = encodeURIComponent(res.body.nextCursor);
    }
    const seenIds = ids(seen);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    for (const booking of existing) expect(seenIds).toContain(booking.bookingId);
    const keys = seen.map((b) => `${b.startDate} ${b.bookingId}`);
    expect(keys).toEqual([...keys].sort());
    expect(inserted).toBeGreaterThan(5);
  });

  it('validates its query: both dates, valid dates, status 1-3 only, limit 1-100, a cursor of this list and query', async () => {
    const { api, propertyId } = await freshAccount();
    await createBooking(api, propertyId, { startDate: at(1), endDate: at(2) });
    await createBooking(api, propertyId, { startDate: at(1.5), endDate: at(2) });
    const from = encodeURIComponent(at(0));
    const to = encodeURIComponent(at(5));
    const get = (query: string) => api.get(`/v1/bookings?${query}`);
    expect(pointersOf(await get(`dateTo=${to}`).expect(400))).toEqual(['#/dateFrom']);
    expect(pointersOf(await get(`dateFrom=${from}`).expect(400))).toEqual(['#/dateTo']);
    expect(pointersOf(await get('').expect(400))).toEqual(['#/dateFrom', '#/dateTo']);
    for (const bad of ['2030-01-01', 'yesterday', '2030-02-30T00:00:00Z', '2030-01-01T00:00:00']) {
      const res = await get(`dateFrom=${encodeURIComponent(bad)}&dateTo=${to}`).expect(400);
      expect(pointersOf(res)).toEqual(['#/dateFrom']);
    }
    for (const status of ['0', '4', '-1', '1.0', 'x', '', '0x1', '7']) {
      const res = await get(`dateFrom=${from}&dateTo=${to}&status=${status}`).expect(400);
      expect(pointersOf(res)).toEqual(['#/status']);
    }
    for (const status of ['1', '2', '3']) await get(`dateFrom=${from}&dateTo=${to}&status=${status}`).expect(200);
    await get(`dateFrom=${from}&dateTo=${to}&limit=0`).expect(400);
    await get(`dateFrom=${from}&dateTo=${to}&limit=101`).expect(400);
    await get(`dateFrom=${from}&dateTo=${to}&limit=100`).expect(200);
    expect((await get(`dateFrom=${from}&dateTo=${to}&colour=red`).expect(400)).body.code).toBe('objectStrict');
    expectProblem(await get(`dateFrom=${from}&dateTo=${to}&cursor=garbage`), 400, 'invalidCursor');
    const page = await get(`dateFrom=${from}&dateTo=${to}&limit=1`).expect(200);
    const cursor = encodeURIComponent(page.body.nextCursor);
    await get(`dateFrom=${from}&dateTo=${to}&limit=1&cursor=${cursor}`).expect(200);
    // The cursor belongs to its query: another window or filter, or a properties cursor, is refused.
    expectProblem(await get(`dateFrom=${from}&dateTo=${encodeURIComponent(at(6))}&cursor=${cursor}`), 400, 'invalidCursor');
    expectProblem(await get(`dateFrom=${from}&dateTo=${to}&status=1&cursor=${cursor}`), 400, 'invalidCursor');
    await createProperty(api);
    const props = await api.get('/v1/properties?limit=1').expect(200);
    expectProblem(await get(`dateFrom=${from}&dateTo=${to}&cursor=${encodeURIComponent(props.body.nextCursor)}`), 400, 'invalidCursor');
  });
});
