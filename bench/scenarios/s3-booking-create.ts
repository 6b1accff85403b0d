import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import type { BenchContext, Outcome } from '../support/context';
import { postJson } from '../support/context';
import { hashApiKey } from '../../src/modules/auth/auth.rules';
import { pgbenchScript } from '../support/booking-create-sql';
import { BENCH_DATABASE, propertyBody, seedAccount } from '../support/env';
import { CONNECTIONS, load, LoadResult, median, ROUND_SECONDS } from '../support/load';

const run = promisify(execFile);
const WARM_UP_SECONDS = Math.min(3, ROUND_SECONDS);
const START = '2031-06-01T15:00:00.000Z';
const END = '2031-06-04T10:00:00.000Z';

const GUESTS = [{ sourceId: 'guest-1', firstName: 'Ada', lastName: 'Lovelace' }];
const TAGS = ['bench'];

/** The create body; `{{n}}` becomes unique per request (load-child). */
function bookingBody(propertyId: string, sourceBookingId: string): string {
  return JSON.stringify({
    sourceBookingId,
    propertyId,
    startDate: START,
    endDate: END,
    numberOfGuests: 2,
    guestDetails: GUESTS,
    tags: TAGS,
  });
}

interface PgbenchResult {
  tps: number;
  transactions: number;
  failed: number;
}

/** pgbench: 10 clients (as the API's 10 connections), 2 threads, prepared statements, no vacuum. */
async function pgbench(script: string, vars: Record<string, string>, seconds: number): Promise<PgbenchResult> {
  const args = ['-n', '-M', 'prepared', '-c', String(CONNECTIONS), '-j', '2', '-T', String(seconds), '-f', script];
  for (const [name, value] of Object.entries(vars)) args.push('-D', `${name}=${value}`);
  args.push('-h', '127.0.0.1', '-U', 'postgres', BENCH_DATABASE);
  const { stdout } = await run('pgbench', args, { maxBuffer: 1 << 20 });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
  const failed = /number of failed transactions: (\d+)/.exec(stdout);
  if (!tps || !processed) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return { tps: Number(tps[1]), transactions: Number(processed[1]), failed: failed ? Number(failed[1]) : 0 };
}

/**
 * S3: POST /v1/bookings (validation, the property resolved, the booking, its automatic turnover
 * reminder, two events, one transaction) at 10 connections, against bare Express with `pg` running the
 * same statements prepared after the same key lookup and rate-limit script (the raw server: what Node does
 * with them without the framework; the goal since issue 33), and against pgbench running the statements as
 * a custom script on 10 clients in the same run (what PostgreSQL does with them without Node): a warm-up of
 * each, then three alternating rounds; each figure is the median of its rounds. Honest when every
 * response was a 201, pgbench failed nothing, and the account holds the bookings all three made,
 * each with its reminder.
 */
export async function bookingCreate(ctx: BenchContext): Promise<Outcome> {
  const { origin, process: api } = await ctx.readApi();
  const account = await seedAccount(ctx.db, 'bookings');
  const pool = new Pool(origin, { connections: 1 });
  let propertyId: string;
  let bookingShape: unknown;
  let reminderShape: unknown;
  try {
    const property = await postJson(pool, account.apiKey, '/v1/properties', propertyBody(-3));
    propertyId = property.body.propertyId as string;
    if (property.status !== 201 || !propertyId) throw new Error(`creating the property answered ${property.status}`);
    const sample = await postJson(pool, account.apiKey, '/v1/bookings', bookingBody(propertyId, `bench-sample-${Date.now()}`));
    if (sample.status !== 201) throw new Error(`the sample booking answered ${sample.status}`);
    bookingShape = sample.body;
    const { rows } = await ctx.db.query<{ results: unknown[] }>(
      `SELECT results FROM events WHERE account_id = $1 AND event_name = 'reminder.create'`,
      [account.accountId],
    );
    reminderShape = rows[0]?.results[0];
    if (!reminderShape) throw new Error('the sample booking made no turnover reminder');
  } finally {
    await pool.close();
  }

  const script = join(mkdtempSync(join(tmpdir(), 'bench-s3-')), 'booking-create.sql');
  writeFileSync(script, pgbenchScript());
  const vars = {
    key_hash: `\\x${hashApiKey(account.apiKey).toString('hex')}`,
    acct: account.accountId,
    prop: propertyId,
    start: START,
    end: END,
    guests: JSON.stringify(GUESTS),
    tags: `{${TAGS.join(',')}}`,
    booking_event: JSON.stringify([bookingShape]),
    reminder_event: JSON.stringify([reminderShape]),
  };
  const raw = await ctx.rawServer();
  const post = (target: string, prefix: string) => (seconds: number) =>
    load({
      origin: target,
      paths: ['/v1/bookings'],
      headers: { 'x-api-key': account.apiKey },
      postBody: bookingBody(propertyId, `${prefix}-{{n}}`),
      connections: CONNECTIONS,
      seconds,
    });
  const ours = post(origin, 'bench');
  const bare = post(raw, 'raw');

  const warm = {
    ours: await ours(WARM_UP_SECONDS),
    raw: await bare(WARM_UP_SECONDS),
    pgbench: await pgbench(script, vars, WARM_UP_SECONDS),
  };
  const rounds: { ours: LoadResult[]; raw: LoadResult[]; pgbench: PgbenchResult[] } = { ours: [], raw: [], pgbench: [] };
  // The API's own CPU per create, the figure that does not depend on what else shares the machine.
  const apiCpu: number[] = [];
  for (let round = 0; round < 3; round++) {
    const before = api.cpuMs();
    const result = await ours(ROUND_SECONDS);
    apiCpu.push((api.cpuMs() - before) / result.total);
    rounds.ours.push(result);
    rounds.raw.push(await bare(ROUND_SECONDS));
    rounds.pgbench.push(await pgbench(script, vars, ROUND_SECONDS));
  }
  const apiCpuMsPerCreate = median(apiCpu);

  const oursTps = median(rounds.ours.map((r) => r.requestsPerSecond));
  const rawTps = median(rounds.raw.map((r) => r.requestsPerSecond));
  const pgbenchTps = median(rounds.pgbench.map((r) => r.tps));
  const ratio = oursTps / pgbenchTps;
  const httpCreates = [warm.ours, ...rounds.ours, warm.raw, ...rounds.raw].reduce((sum, r) => sum + r.total, 0) + 1;
  const sqlCreates = [warm.pgbench, ...rounds.pgbench].reduce((sum, r) => sum + r.transactions, 0);
  const { rows } = await ctx.db.query<{ bookings: number; reminders: number }>(
    `SELECT (SELECT count(*)::int FROM bookings WHERE account_id = $1) AS bookings,
            (SELECT count(*)::int FROM reminders WHERE account_id = $1) AS reminders`,
    [account.accountId],
  );
  const counts = rows[0];
  const loads = [warm.ours, ...rounds.ours, warm.raw, ...rounds.raw];
  const problems = [
    ...loads.filter((r) => r.non2xx || r.errors || r.timeouts || !r.total).map(() => 'a create was not a 201'),
    ...[warm.pgbench, ...rounds.pgbench].filter((r) => r.failed || !r.transactions).map(() => 'a pgbench transaction failed'),
    // Requests still in flight when a round's time is up are made but not counted: at most one per connection and round.
    ...(counts.bookings < httpCreates + sqlCreates ||
    counts.bookings > httpCreates + sqlCreates + loads.length * CONNECTIONS ||
    counts.reminders !== counts.bookings
      ? [`rows: ${counts.bookings} bookings and ${counts.reminders} reminders for ${httpCreates} + ${sqlCreates} creates`]
      : []),
  ];
  return {
    ours: `${Math.round(oursTps)} creates/s`,
    baseline: `${Math.round(pgbenchTps)} tx/s (pgbench); bare Express + pg: ${Math.round(rawTps)} creates/s, ${(rawTps / pgbenchTps).toFixed(2)}x`,
    ratio: `${(oursTps / rawTps).toFixed(2)}x of bare Express (${ratio.toFixed(2)}x of pgbench)`,
    pass: problems.length === 0 && oursTps / rawTps >= 0.6,
    dishonest: problems.length ? [...new Set(problems)].join('; ') : undefined,
    details: {
      apiCpuMsPerCreate,
      oursTps,
      rawTps,
      pgbenchTps,
      ratio,
      rawRatio: rawTps / pgbenchTps,
      oursOfRaw: oursTps / rawTps,
      httpCreates,
      sqlCreates,
      counts,
      rounds,
      warm,
      script: pgbenchScript(),
    },
  };
}
