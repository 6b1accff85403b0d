import { Pool } from 'undici';
import { BenchContext, Outcome, postJson } from '../support/context';
import { propertyBody, seedAccount } from '../support/env';
import { CONNECTIONS, median, ROUND_SECONDS } from '../support/load';

const CHECKLISTS = 3;
const TASKS_PER_CHECKLIST = 20;
const ROUNDS = 3;
const WARM_UP_SECONDS = Math.min(3, ROUND_SECONDS);

interface Round {
  medianMs: number;
  p99Ms: number;
  requests: number;
  failed: number;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** `seconds` of back-to-back POSTs on CONNECTIONS connections, each connection waiting for its answer. */
async function round(pool: Pool, apiKey: string, path: string, body: (n: number) => string, seconds: number): Promise<Round> {
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const payload = body(n++);
        const start = performance.now();
        const res = await postJson(pool, apiKey, path, payload);
        latencies.push(performance.now() - start);
        if (res.status !== 201) failed++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { medianMs: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), requests: latencies.length, failed };
}

/**
 * S8: POST /v1/jobRequests naming three checklists of 20 tasks each (the job copies all 60 tasks)
 * at 10 connections, its median latency against S3's request, POST /v1/bookings, measured on the
 * same API in the same run: a warm-up of each, then three alternating rounds (jobs, bookings, ...),
 * each figure the median of its rounds' medians. The create must cost a round of statements per
 * table whatever the number of tasks (docs/job-requests.md): within 3x of a booking create.
 */
export async function jobCreate(ctx: BenchContext): Promise<Outcome> {
  const { origin } = await ctx.readApi();
  const account = await seedAccount(ctx.db, 'jobs');
  const pool = new Pool(origin, { connections: CONNECTIONS });
  try {
    const property = await postJson(pool, account.apiKey, '/v1/properties', propertyBody(-8));
    const propertyId = property.body.propertyId;
    if (property.status !== 201 || !propertyId) throw new Error(`creating the property answered ${property.status}`);
    const checklistIds: string[] = [];
    for (let c = 0; c < CHECKLISTS; c++) {
      const checklist = await postJson(
        pool,
        account.apiKey,
        '/v1/checklists',
        JSON.stringify({
          title: `Turnover ${c + 1}`,
          propertyId,
          taskGroups: [
            {
              title: 'Every room',
              verificationRequired: true,
              tasks: Array.from({ length: TASKS_PER_CHECKLIST }, (_, t) => ({
                label: `Task ${c + 1}.${t + 1}`,
                sourceTaskId: `src-${c}-${t}`,
              })),
            },
          ],
        }),
      );
      if (checklist.status !== 201) throw new Error(`creating a checklist answered ${checklist.status}`);
      checklistIds.push(checklist.body.checklistId as string);
    }

    const job = JSON.stringify({
      serviceProviders: [{ email: 'ann@cleaners.example' }, { email: 'bob@cleaners.example' }],
      time: { type: 'fixed', startTime: '2031-06-01T10:00:00Z', durationInHours: 3 },
      property: { propertyId },
      checklists: checklistIds.map((checklistId) => ({ checklistId })),
      offeredPrice: 80,
      offeredPriceCurrency: 'EUR',
      message: 'Turnover between two stays',
    });
    const jobBody = () => job;
    const runId = `${process.pid}-${Date.now()}`;
    const bookingBody = (n: number) =>
      JSON.stringify({
        sourceBookingId: `bench-${runId}-${n}`,
        propertyId,
        startDate: '2031-06-01T15:00:00Z',
        endDate: '2031-06-04T10:00:00Z',
        numberOfGuests: 2,
        guestDetails: [{ sourceId: 'guest-1', firstName: 'Ada', lastName: 'Lovelace' }],
      });
    let bookingRound = 0;
    const bookings = (seconds: number) =>
      round(pool, account.apiKey, '/v1/bookings', (n) => bookingBody(bookingRound * 1_000_000 + n), seconds);

    const warm = [await round(pool, account.apiKey, '/v1/jobRequests', jobBody, WARM_UP_SECONDS), await bookings(WARM_UP_SECONDS)];
    const rounds: { jobs: Round[]; bookings: Round[] } = { jobs: [], bookings: [] };
    for (let r = 0; r < ROUNDS; r++) {
      bookingRound = r + 1;
      rounds.jobs.push(await round(pool, account.apiKey, '/v1/jobRequests', jobBody, ROUND_SECONDS));
      rounds.bookings.push(await bookings(ROUND_SECONDS));
    }

    const jobsMs = median(rounds.jobs.map((r) => r.medianMs));
    const bookingsMs = median(rounds.bookings.map((r) => r.medianMs));
    const ratio = jobsMs / bookingsMs;
    const honest = [...warm, ...rounds.jobs, ...rounds.bookings].every((r) => r.failed === 0 && r.requests > 0);
    ctx.figures.set('S8.medianMs', jobsMs);
    return {
      ours: `${jobsMs.toFixed(1)} ms median`,
      baseline: `${bookingsMs.toFixed(1)} ms median (POST /v1/bookings)`,
      ratio: `${ratio.toFixed(2)}x`,
      pass: honest && ratio <= 3,
      dishonest: honest ? undefined : 'a create was not 201',
      details: { jobsMs, bookingsMs, ratio, tasksPerJob: CHECKLISTS * TASKS_PER_CHECKLIST, rounds, warm },
    };
  } finally {
    await pool.close();
  }
}
