import { DataSource } from 'typeorm';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { RequestContext } from '../../src/platform/context/request-context';
import { ApiClient, clientFor, createAccount, startApp, TestAccount, TestApp } from '../support/app';
import { FeedEvent, waitUntilInFeed, publishUnchecked } from '../support/events';
import { expectProblem } from '../support/problem';

const EVENT_KEYS = ['apiRequestId', 'clientRequestId', 'createdAt', 'eventName', 'id', 'results', 'targetAccountId'];

describe('GET /v1/events (spec 4.9, 6)', () => {
  let t: TestApp;
  let uow: UnitOfWork;
  let events: EventsService;

  beforeAll(async () => {
    t = await startApp();
    uow = t.app.get(UnitOfWork);
    events = t.app.get(EventsService);
  });
  afterAll(() => t.close());

  const ctxOf = (account: TestAccount, n: number | string): RequestContext => ({
    accountId: account.accountId,
    requestId: `r${n}`,
    clientRequestId: `c${n}`,
  });

  /** Publishes one event per call, each in its own committed transaction. */
  async function seed(account: TestAccount, count: number, name = 'test.thing'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const event = await uow.run(ctxOf(account, i), (tx) => publishUnchecked(events, tx, name, [{ n: i }]));
      ids.push(event.id);
    }
    if (ids.length) await waitUntilInFeed(t, ids[ids.length - 1]);
    return ids;
  }

  /** Reads the whole feed page by page, checking every envelope on the way. */
  async function readAll(api: ApiClient, limit: number, after?: string): Promise<{ items: FeedEvent[]; pages: number }> {
    const items: FeedEvent[] = [];
    let cursor = after;
    for (let pages = 1; pages < 100; pages++) {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { after: cursor } : {}) });
      const res = await api.get(`/v1/events?${query}`).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'hasMore', 'nextCursor']);
      const { data, nextCursor, hasMore } = res.body as { data: FeedEvent[]; nextCursor: string | null; hasMore: boolean };
      expect(data.length).toBeLessThanOrEqual(limit);
      items.push(...data);
      if (!hasMore) {
        expect(nextCursor).toBeNull();
        return { items, pages };
      }
      expect(data).toHaveLength(limit);
      expect(nextCursor).toBe(data[data.length - 1].id);
      cursor = nextCursor!;
    }
    throw new Error('the feed never ended');
  }

  it('answers an account without events with an empty envelope', async () => {
    const api = clientFor(t, await createAccount(t));
    const res = await api.get('/v1/events').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ data: [], nextCursor: null, hasMore: false });
  });

  it('returns the event envelope with exactly the spec fields', async () => {
    const account = await createAccount(t);
    const published = await uow.run({ accountId: account.accountId, requestId: 'r1', clientRequestId: 'c1' }, (tx) =>
      publishUnchecked(events, tx, 'test.thing', [{ a: 1 }, { b: [true, null, 'x'] }]),
    );
    await waitUntilInFeed(t, published.id);
    const res = await clientFor(t, account).get('/v1/events').expect(200);
    expect(res.body).toEqual({
      data: [
        {
          id: published.id,
          eventName: 'test.thing',
          createdAt: published.createdAt.toISOString(),
          clientRequestId: 'c1',
          apiRequestId: 'r1',
          targetAccountId: account.accountId,
          results: [{ a: 1 }, { b: [true, null, 'x'] }],
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(EVENT_KEYS);
    expect(res.body.data[0].id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.data[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('lists oldest first and pages with after=nextCursor without duplicates or gaps', async () => {
    const account = await createAccount(t);
    const ids = await seed(account, 7);
    const api = clientFor(t, account);

    const all = await api.get('/v1/events').expect(200);
    expect(all.body.data.map((e: FeedEvent) => e.id)).toEqual(ids);
    expect(all.body.data.map((e: FeedEvent) => e.results)).toEqual(ids.map((_, i) => [{ n: i }]));
    expect(all.body).toMatchObject({ nextCursor: null, hasMore: false });

    for (const limit of [1, 2, 3, 6, 7, 8]) {
      const { items, pages } = await readAll(api, limit);
      expect({ limit, ids: items.map((e) => e.id) }).toEqual({ limit, ids });
      // limit + 1 rows are read, so a page ending exactly at the last event already says hasMore false.
      expect(pages).toBe(Math.max(1, Math.ceil(ids.length / limit)));
    }
  });

  it('says hasMore false on a page that ends exactly at the last event', async () => {
    const account = await createAccount(t);
    const ids = await seed(account, 4);
    const api = clientFor(t, account);
    const first = await api.get('/v1/events?limit=2').expect(200);
    expect(first.body).toMatchObject({ nextCursor: ids[1], hasMore: true });
    const second = await api.get(`/v1/events?limit=2&after=${ids[1]}`).expect(200);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ id: ids[2] }), expect.objectContaining({ id: ids[3] })],
      nextCursor: null,
      hasMore: false,
    });
    const past = await api.get(`/v1/events?after=${ids[3]}`).expect(200);
    expect(past.body).toEqual({ data: [], nextCursor: null, hasMore: false });
  });

  it('keeps the order of events published in one transaction', async () => {
    const account = await createAccount(t);
    const ids = await uow.run(ctxOf(account, 'multi'), async (tx) => {
      const out: string[] = [];
      for (const name of ['thing.first', 'thing.second', 'thing.third']) out.push((await publishUnchecked(events, tx, name, [])).id);
      return out;
    });
    await waitUntilInFeed(t, ids[2]);
    const res = await clientFor(t, account).get('/v1/events').expect(200);
    expect(res.body.data.map((e: FeedEvent) => [e.id, e.eventName])).toEqual([
      [ids[0], 'thing.first'],
      [ids[1], 'thing.second'],
      [ids[2], 'thing.third'],
    ]);
  });

  it('never shows events of a rolled-back transaction', async () => {
    const account = await createAccount(t);
    await expect(
      uow.run(ctxOf(account, 'rb'), async (tx) => {
        await publishUnchecked(events, tx, 'test.rolledback', []);
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');
    const [kept] = await seed(account, 1);
    const res = await clientFor(t, account).get('/v1/events').expect(200);
    expect(res.body.data.map((e: FeedEvent) => e.id)).toEqual([kept]);
  });

  it('honours limit 1 and 100, and defaults to 50', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const ids = await uow.run(ctxOf(account, 'bulk'), async (tx) => {
      const out: string[] = [];
      for (let i = 0; i < 101; i++) out.push((await publishUnchecked(events, tx, 'test.bulk', [{ i }])).id);
      return out;
    });
    await waitUntilInFeed(t, ids[100]);
    const one = await api.get('/v1/events?limit=1').expect(200);
    expect(one.body.data.map((e: FeedEvent) => e.id)).toEqual([ids[0]]);
    expect(one.body).toMatchObject({ hasMore: true, nextCursor: ids[0] });

    const hundred = await api.get('/v1/events?limit=100').expect(200);
    expect(hundred.body.data.map((e: FeedEvent) => e.id)).toEqual(ids.slice(0, 100));
    expect(hundred.body).toMatchObject({ hasMore: true, nextCursor: ids[99] });
    const rest = await api.get(`/v1/events?limit=100&after=${ids[99]}`).expect(200);
    expect(rest.body).toEqual({ data: [expect.objectContaining({ id: ids[100] })], nextCursor: null, hasMore: false });

    const fifty = await api.get('/v1/events').expect(200);
    expect(fifty.body.data).toHaveLength(50);
    expect(fifty.body).toMatchObject({ hasMore: true, nextCursor: ids[49] });
  });

  it.each(['0', '101', '-1', '1.5', 'abc', ''])('rejects limit=%p with 400 validationFailed', async (limit) => {
    const api = clientFor(t, await createAccount(t));
    const res = await api.get(`/v1/events?limit=${limit}`).expect(400);
    expect(expectProblem(res, 400, 'validationFailed', '/v1/events').errors).toEqual([{ pointer: '#/limit', detail: expect.any(String) }]);
  });

  describe('invalid after', () => {
    let account: TestAccount;
    let other: TestAccount;
    let otherIds: string[];

    beforeAll(async () => {
      account = await createAccount(t);
      other = await createAccount(t);
      await seed(account, 2);
      otherIds = await seed(other, 2);
    });

    it.each([
      ['an unknown event id', 'evt_01AAAAAAAAAAAAAAAAAAAAAAAA'],
      ['garbage', 'zzz'],
      ['SQL', "x' OR '1'='1"],
      ['an id of another kind', 'acct_01AAAAAAAAAAAAAAAAAAAAAAAA'],
      ['a list cursor', 'eyJ4IjoxfQ.abcdef'],
      ['a NUL character', 'evt_\u0000'],
      ['an event id in lower case', 'evt_01aaaaaaaaaaaaaaaaaaaaaaaa'],
    ])('answers %s with 400 invalidCursor', async (_label, after) => {
      const res = await clientFor(t, account)
        .get(`/v1/events?after=${encodeURIComponent(after)}`)
        .expect(400);
      const problem = expectProblem(res, 400, 'invalidCursor', '/v1/events');
      expect(problem.title).toBe('Invalid cursor');
    });

    it("answers another account's event id with 400 invalidCursor, leaking nothing", async () => {
      const res = await clientFor(t, account).get(`/v1/events?after=${otherIds[0]}`).expect(400);
      const problem = expectProblem(res, 400, 'invalidCursor');
      expect(JSON.stringify(problem)).not.toContain(other.accountId);
      // The owner may use it.
      const own = await clientFor(t, other).get(`/v1/events?after=${otherIds[0]}`).expect(200);
      expect(own.body.data.map((e: FeedEvent) => e.id)).toEqual([otherIds[1]]);
    });

    it.each([
      ['empty', ''],
      ['over 100 characters', 'e'.repeat(101)],
    ])('answers an after that is %s with 400 validationFailed', async (_label, after) => {
      const res = await clientFor(t, account).get(`/v1/events?after=${after}`).expect(400);
      expect(expectProblem(res, 400, 'validationFailed').errors).toEqual([
        { pointer: '#/after', detail: expect.stringContaining('after') },
      ]);
    });

    it('answers a repeated after with 400 validationFailed', async () => {
      const res = await clientFor(t, account).get(`/v1/events?after=${otherIds[0]}&after=${otherIds[1]}`).expect(400);
      expectProblem(res, 400, 'validationFailed');
    });

    it('answers unknown parameters (cursor is not this feed’s name) with 400 objectStrict', async () => {
      const res = await clientFor(t, account).get('/v1/events?cursor=abc&since=2020-01-01').expect(400);
      const problem = expectProblem(res, 400, 'objectStrict');
      expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['#/cursor', '#/since']);
    });
  });

  it("never shows another account's events", async () => {
    const a = await createAccount(t);
    const b = await createAccount(t);
    const aIds = await seed(a, 3, 'test.a');
    const bIds = await seed(b, 3, 'test.b');
    const aFeed = await readAll(clientFor(t, a), 2);
    const bFeed = await readAll(clientFor(t, b), 2);
    expect(aFeed.items.map((e) => e.id)).toEqual(aIds);
    expect(bFeed.items.map((e) => e.id)).toEqual(bIds);
    expect(aFeed.items.every((e) => e.targetAccountId === a.accountId && e.eventName === 'test.a')).toBe(true);
    expect(bFeed.items.every((e) => e.targetAccountId === b.accountId && e.eventName === 'test.b')).toBe(true);
  });

  it('never lets a client holding a cursor skip an event whose transaction commits late', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const [seen] = await seed(account, 1, 'test.before');
    const cursorRes = await api.get('/v1/events').expect(200);
    expect(cursorRes.body.data.map((e: FeedEvent) => e.id)).toEqual([seen]);
    const cursor = seen;

    // Transaction A publishes, then stays open until we let it go.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let published!: () => void;
    const publishedInA = new Promise<void>((resolve) => (published = resolve));
    let fastId = '';
    const slow = uow.run(ctxOf(account, 'slow'), async (tx) => {
      const event = await publishUnchecked(events, tx, 'test.slow', [{ which: 'slow' }]);
      published();
      await gate;
      return event;
    });
    try {
      await publishedInA;
      // Transaction B starts after A wrote, publishes and commits first.
      const fast = await uow.run(ctxOf(account, 'fast'), (tx) => publishUnchecked(events, tx, 'test.fast', [{ which: 'fast' }]));
      fastId = fast.id;
      expect(await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM events WHERE id = $1', [fast.id])).toEqual([{ n: 1 }]);

      // Neither shows yet: A is still running and B committed behind it.
      const during = await api.get(`/v1/events?after=${cursor}`).expect(200);
      expect(during.body).toEqual({ data: [], nextCursor: null, hasMore: false });
      const fromStart = await api.get('/v1/events').expect(200);
      expect(fromStart.body.data.map((e: FeedEvent) => e.id)).toEqual([seen]);
    } finally {
      release();
    }
    const slowEvent = await slow;
    await waitUntilInFeed(t, fastId);

    // Once A commits, the same cursor yields both, A's first (it wrote first), nothing skipped.
    const after = await api.get(`/v1/events?after=${cursor}`).expect(200);
    expect(after.body.data.map((e: FeedEvent) => e.eventName)).toEqual(['test.slow', 'test.fast']);
    expect(after.body.data[0].id).toBe(slowEvent.id);
    const everything = await readAll(api, 1);
    expect(everything.items.map((e) => e.eventName)).toEqual(['test.before', 'test.slow', 'test.fast']);
  });

  it('shows events committed before a still-running transaction began writing', async () => {
    const account = await createAccount(t);
    const api = clientFor(t, account);
    const [early] = await seed(account, 1, 'test.early');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let published!: () => void;
    const publishedInA = new Promise<void>((resolve) => (published = resolve));
    const slow = uow.run(ctxOf(account, 'slow2'), async (tx) => {
      const event = await publishUnchecked(events, tx, 'test.slow', []);
      published();
      await gate;
      return event;
    });
    try {
      await publishedInA;
      const during = await api.get('/v1/events').expect(200);
      expect(during.body.data.map((e: FeedEvent) => e.id)).toEqual([early]);
    } finally {
      release();
    }
    await waitUntilInFeed(t, (await slow).id);
    const res = await api.get('/v1/events').expect(200);
    expect(res.body.data.map((e: FeedEvent) => e.eventName)).toEqual(['test.early', 'test.slow']);
  });
});
