import type { Client } from 'pg';
import { Pool } from 'undici';
import type { DataSource } from 'typeorm';
import { BookingListFilter, BookingsRepository } from '../../src/modules/bookings/bookings.repository';
import type { BenchContext, Outcome } from '../support/context';
import { seedAccount } from '../support/env';
import { CONNECTIONS, load, LoadResult, median, ROUND_SECONDS } from '../support/load';

const PROPERTIES = 1_000;
const SIZES = [10_000, 1_000_000] as const;
const PAGE = 50;
/** How deep the deep page is: rows before it. */
const DEPTH = 5_000;
const DAY = 86_400_000;
const WARM_UP_SECONDS = Math.min(3, ROUND_SECONDS);

interface Dataset {
  size: number;
  accountId: string;
  apiKey: string;
  /** The median check-in: "the middle of the data". */
  middle: Date;
}

/**
 * `bookingsPerProperty` stays per property, back to back as a calendar fills: 1-14 nights, 0-4 days
 * apart, check-in 15:00, check-out 10:00, one in ten cancelled; ids in creation order. The 10,000 and
 * the 1,000,000 bookings are the same calendars, 10 or 1,000 stays long (100 days or 27 years of
 * history), so a week holds the same bookings in both. Set-based, then VACUUM ANALYZE (as autovacuum
 * would leave a table that size), so index-only scans see all-visible pages.
 */
async function seed(db: Client, size: number): Promise<Dataset> {
  const tag = size === 10_000 ? '10k' : '1m';
  const account = await seedAccount(db, `list${tag}`);
  const perProperty = size / PROPERTIES;
  const propertyId = (expr: string) => `'prop_02${tag}' || lpad(${expr}::text, 20, '0')`;
  await db.query(
    `INSERT INTO properties (id, account_id, source_id, name, country_code, time_zone, latitude, longitude, beds, bedrooms, bathrooms)
     SELECT ${propertyId('p')}, $1, 'list-' || p, 'List property ' || p, 'FR', 'Europe/Paris', 48.85, 2.35, 2, 1, 1
       FROM generate_series(1, $2::int) AS p`,
    [account.accountId, PROPERTIES],
  );
  await db.query(
    `INSERT INTO bookings (id, account_id, property_id, source_booking_id, status, start_date, end_date, title, number_of_guests, guest_details)
     SELECT 'bk_02${tag}' || lpad((k * $2::int + p)::text, 20, '0'), $1, ${propertyId('p')}, 'list-' || p || '-' || k,
            CASE WHEN (k * 7 + p) % 10 = 0 THEN 3 ELSE 1 END,
            timestamptz '2000-01-01' + (sum(stay + gap) OVER w - stay) * interval '1 day' + interval '15 hours',
            timestamptz '2000-01-01' + sum(stay + gap) OVER w * interval '1 day' + interval '10 hours',
            'Stay ' || k, 2, '[{"sourceId":"g1","firstName":"Ada","lastName":"Lovelace"}]'
       FROM (SELECT p, k, 1 + (p * 7 + k * 13) % 14 AS stay, (p * 3 + k * 5) % 5 AS gap
               FROM generate_series(1, $2::int) AS p, generate_series(1, $3::int) AS k) s
     WINDOW w AS (PARTITION BY p ORDER BY k)`,
    [account.accountId, PROPERTIES, perProperty],
  );
  await db.query('VACUUM ANALYZE bookings');
  const { rows } = await db.query<{ middle: Date }>(
    `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY start_date) AS middle FROM bookings WHERE account_id = $1`,
    [account.accountId],
  );
  return { size, accountId: account.accountId, apiKey: account.apiKey, middle: rows[0].middle };
}

const query = (from: Date, to: Date, extra = '') =>
  `/v1/bookings?dateFrom=${encodeURIComponent(from.toISOString())}&dateTo=${encodeURIComponent(to.toISOString())}&limit=${PAGE}${extra}`;

/** A week from the middle of the data: its first page. */
const weekPage = (d: Dataset) => query(d.middle, new Date(d.middle.getTime() + 7 * DAY));
/** Ninety days around the middle: the window the deep page is in. */
const quarter = (d: Dataset) => ({ from: new Date(d.middle.getTime() - 45 * DAY), to: new Date(d.middle.getTime() + 45 * DAY) });

/** Pages through the API (100 at a time) to DEPTH rows into the quarter, and returns that cursor. */
async function deepCursor(pool: Pool, d: Dataset): Promise<string> {
  const { from, to } = quarter(d);
  let cursor = '';
  for (let seen = 0; seen < DEPTH; seen += 100) {
    const path = `${query(from, to).replace(`limit=${PAGE}`, 'limit=100')}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await pool.request({ method: 'GET', path, headers: { 'x-api-key': d.apiKey } });
    const body = (await res.body.json()) as { nextCursor: string | null; data: unknown[] };
    if (res.statusCode !== 200 || !body.nextCursor) throw new Error(`paging ${d.size} stopped at ${seen} rows (${res.statusCode})`);
    cursor = body.nextCursor;
  }
  return cursor;
}

interface ExplainJson {
  'Planning Time': number;
  'Execution Time': number;
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
}

/** The list's own SQL (BookingsRepository.listPage, captured rather than copied). */
async function listSql(accountId: string, filter: BookingListFilter): Promise<{ sql: string; params: unknown[] }> {
  let captured: { sql: string; params: unknown[] } | undefined;
  const capture = { query: async (sql: string, params: unknown[]) => ((captured = { sql, params }), []) } as unknown as DataSource;
  await new BookingsRepository(capture).listPage(accountId, filter, PAGE + 1);
  return captured!;
}

/** The week's first page and the deep page as the list runs them, and the deep page by OFFSET. */
async function sqlPlans(db: Client, d: Dataset, cursorRow: { startDate: string; id: string }) {
  const { from, to } = quarter(d);
  const week = await listSql(d.accountId, { window: { from: d.middle, to: new Date(d.middle.getTime() + 7 * DAY) } });
  const first = await listSql(d.accountId, { window: { from, to } });
  const deep = await listSql(d.accountId, { window: { from, to }, after: cursorRow });
  const offset = {
    sql: `SELECT * FROM bookings WHERE account_id = $1 AND start_date < $3 AND end_date > $2 ORDER BY start_date, id OFFSET $4 LIMIT $5`,
    params: [d.accountId, from, to, DEPTH, PAGE + 1],
  };
  /** Planning and execution (the API sends each statement unprepared), median of 7, and the buffers it touched. */
  const explain = async ({ sql, params }: { sql: string; params: unknown[] }) => {
    const times: number[] = [];
    let buffers = 0;
    for (let i = 0; i < 7; i++) {
      const { rows } = await db.query<{ 'QUERY PLAN': ExplainJson[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params);
      const [plan] = rows[0]['QUERY PLAN'];
      times.push(plan['Planning Time'] + plan['Execution Time']);
      buffers = plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
    }
    return { ms: median(times), buffers };
  };
  return { week: await explain(week), first: await explain(first), deep: await explain(deep), offset: await explain(offset) };
}

/**
 * S4: GET /v1/bookings at 10,000 and at 1,000,000 bookings over 1,000 properties (one account each):
 * the first page of a week in the middle of the data, and the first page and a page 5,000 rows deep
 * (by cursor) of ninety days around the middle, each at 10 connections; a warm-up of each, then three
 * alternating rounds. A page's cost is the API's CPU per request (median of the rounds) plus its
 * statement's time in PostgreSQL (planning and execution, median of 7): at most 1.25x more at
 * 1,000,000 than at 10,000, and the deep page at most 1.25x more than the first. The same deep page
 * by OFFSET is shown beside.
 */
export async function bookingsList(ctx: BenchContext): Promise<Outcome> {
  const { origin, process: api } = await ctx.readApi();
  const datasets: Dataset[] = [];
  for (const size of SIZES) datasets.push(await seed(ctx.db, size));
  const pool = new Pool(origin, { connections: 1 });
  const paths: Record<string, { path: string; apiKey: string }> = {};
  const sql: Record<string, Awaited<ReturnType<typeof sqlPlans>>> = {};
  try {
    for (const d of datasets) {
      const cursor = await deepCursor(pool, d);
      const { from, to } = quarter(d);
      paths[`week ${d.size}`] = { path: weekPage(d), apiKey: d.apiKey };
      paths[`first ${d.size}`] = { path: query(from, to), apiKey: d.apiKey };
      paths[`deep ${d.size}`] = { path: `${query(from, to)}&cursor=${encodeURIComponent(cursor)}`, apiKey: d.apiKey };
      const [startDate, id] = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8')) as [string, string];
      sql[d.size] = await sqlPlans(ctx.db, d, { startDate, id });
    }
  } finally {
    await pool.close();
  }

  const measure = (name: string, seconds: number) =>
    load({ origin, paths: [paths[name].path], headers: { 'x-api-key': paths[name].apiKey }, connections: CONNECTIONS, seconds });
  const names = Object.keys(paths);
  const warm: LoadResult[] = [];
  for (const name of names) warm.push(await measure(name, WARM_UP_SECONDS));
  const rounds: Record<string, LoadResult[]> = Object.fromEntries(names.map((name) => [name, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < 3; round++) {
    for (const name of names) {
      const before = api.cpuMs();
      const result = await measure(name, ROUND_SECONDS);
      cpu[name].push((api.cpuMs() - before) / result.total);
      rounds[name].push(result);
    }
  }
  const rps = Object.fromEntries(names.map((name) => [name, median(rounds[name].map((r) => r.requestsPerSecond))]));
  // What a page costs: the API process's CPU per request (from /proc, around each round) plus its
  // statement's planning and execution in PostgreSQL. Throughput is kept in the details, but on a
  // machine others share it measures the neighbours as much as the page.
  const sqlMs = (name: string) => {
    const [kind, size] = name.split(' ');
    const plans = sql[Number(size)];
    return kind === 'week' ? plans.week.ms : kind === 'first' ? plans.first.ms : plans.deep.ms;
  };
  const cost = Object.fromEntries(names.map((name) => [name, median(cpu[name]) + sqlMs(name)]));
  const ratios = {
    weekPage1mVs10k: cost['week 1000000'] / cost['week 10000'],
    deepPage1mVs10k: cost['deep 1000000'] / cost['deep 10000'],
    deepVsFirst1m: cost['deep 1000000'] / cost['first 1000000'],
    deepVsFirst10k: cost['deep 10000'] / cost['first 10000'],
  };
  const worst = Math.max(...Object.values(ratios));
  const honest = [...warm, ...Object.values(rounds).flat()].every(
    (r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0 && r.total > 0,
  );
  const big = sql[1_000_000];
  const small = sql[10_000];
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  return {
    ours: `1M: week ${ms(cost['week 1000000'])}, deep ${ms(cost['deep 1000000'])} a page (SQL ${ms(big.week.ms)}, ${ms(big.deep.ms)}; the deep page by OFFSET ${ms(big.offset.ms)})`,
    baseline: `10k: week ${ms(cost['week 10000'])}, deep ${ms(cost['deep 10000'])} (SQL ${ms(small.week.ms)}, ${ms(small.deep.ms)}; OFFSET ${ms(small.offset.ms)})`,
    ratio: `${worst.toFixed(2)}x worst`,
    pass: honest && worst <= 1.25,
    dishonest: honest ? undefined : 'a response was not 2xx',
    details: {
      cost,
      ratios,
      cpuMsPerRequest: cpu,
      sql,
      rps,
      depth: DEPTH,
      page: PAGE,
      middles: datasets.map((d) => [d.size, d.middle]),
      rounds,
      warm,
    },
  };
}
