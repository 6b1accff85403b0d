import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { migrate } from '../src/database/migrate';
import { SCENARIOS } from './scenarios/registry';
import { BenchContext, Outcome, RESULTS_DIR } from './support/context';
import { BENCH_DATABASE_URL, BENCH_REDIS_PREFIX, BENCH_REDIS_URL, dropBenchDatabase } from './support/env';
import { ROUND_SECONDS } from './support/load';
import { ROOT } from './support/processes';

/**
 * `npm run bench [-- S1 S5 ...]`: builds dist/, creates the bench database, runs the scenarios
 * (all by default) against the API and worker started from dist/, prints one table, writes
 * bench/results/<scenario>.json and rewrites the results section of docs/performance.md from
 * every recorded result. Exits 1 when a goal is short or a run was not honest.
 */
const DOC = join(ROOT, 'docs', 'performance.md');
const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

interface Recorded extends Outcome {
  id: string;
  title: string;
  goal: string;
  when: string;
  machine: Machine;
}

interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  postgres: string;
  redis: string;
  loadBefore: number[];
  loadAfter?: number[];
  roundSeconds: number;
}

async function machine(ctx: BenchContext): Promise<Machine> {
  const { rows } = await ctx.db.query<{ server_version: string }>('SHOW server_version');
  const redis = new Redis(BENCH_REDIS_URL);
  const info = await redis.info('server');
  await redis.quit();
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    postgres: rows[0].server_version,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
    loadBefore: loadavg().map((v) => Math.round(v * 100) / 100),
    roundSeconds: ROUND_SECONDS,
  };
}

async function clearRedisPrefix(): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL);
  for (const pattern of [`${BENCH_REDIS_PREFIX}:*`, `${BENCH_REDIS_PREFIX}-*`]) {
    const stream = redis.scanStream({ match: pattern, count: 1000 });
    for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  }
  await redis.quit();
}

function markdownTable(rows: Recorded[]): string {
  const head = ['scenario', 'ours', 'baseline', 'ratio', 'goal', 'result'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(head),
    line(head.map(() => '---')),
    ...rows.map((r) => line([`${r.id} ${r.title}`, r.ours, r.baseline, r.ratio, r.goal, verdict(r)])),
  ].join('\n');
}

function verdict(r: Pick<Recorded, 'pass' | 'dishonest' | 'ours'>): string {
  if (r.ours === 'pending') return 'pending';
  if (r.dishonest) return `INVALID: ${r.dishonest}`;
  return r.pass ? 'pass' : 'short';
}

function recorded(): Recorded[] {
  return SCENARIOS.map((scenario) => {
    try {
      return JSON.parse(readFileSync(join(RESULTS_DIR, `${scenario.id}.json`), 'utf8')) as Recorded;
    } catch {
      return {
        ...scenario,
        ours: 'pending',
        baseline: '-',
        ratio: '-',
        pass: false,
        details: {},
        when: '',
        machine: undefined as never,
        run: undefined,
      };
    }
  });
}

/** Rewrites the results section of docs/performance.md from every recorded result. */
function updateDoc(): void {
  const rows = recorded();
  const runs = rows.filter((r) => r.when).map((r) => `${r.id}: ${r.when.slice(0, 16).replace('T', ' ')} UTC on ${describe(r.machine)}`);
  const section = [
    START,
    '',
    markdownTable(rows),
    '',
    `Recorded: ${runs.map((r) => `- ${r}`).join('\n') || '(nothing yet)'}`.replace('Recorded: - ', 'Recorded:\n\n- '),
    '',
    END,
  ].join('\n');
  const doc = readFileSync(DOC, 'utf8');
  const at = doc.indexOf(START);
  const end = doc.indexOf(END);
  writeFileSync(DOC, at >= 0 && end > at ? doc.slice(0, at) + section + doc.slice(end + END.length) : `${doc.trimEnd()}\n\n${section}\n`);
  // In the project's one formatting style, so that `npm run lint` stays clean after a run.
  execFileSync(join(ROOT, 'node_modules', '.bin', 'prettier'), ['--write', DOC], { cwd: ROOT, stdio: 'ignore' });
}

function describe(m: Machine): string {
  const load = `load average ${m.loadBefore.join(' / ')} before, ${m.loadAfter?.join(' / ') ?? '?'} after`;
  return `${m.cores} × ${m.cpu}, ${m.memoryGb} GB, Node ${m.node}, PostgreSQL ${m.postgres}, Redis ${m.redis}; ${m.roundSeconds} s rounds; ${load}`;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--report') return updateDoc();
  const requested = process.argv.slice(2);
  for (const id of requested)
    if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`unknown scenario ${id}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  const chosen = SCENARIOS.filter((s) => requested.length === 0 || requested.includes(s.id));

  process.stderr.write('building dist/ ...\n');
  execFileSync('npm', ['run', 'build:api', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  await dropBenchDatabase();
  await clearRedisPrefix();
  await migrate({ databaseUrl: BENCH_DATABASE_URL, isProduction: false });

  const ctx = new BenchContext();
  await ctx.open();
  const host = await machine(ctx);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const rows: Recorded[] = [];
  try {
    for (const scenario of chosen) {
      if (!scenario.run) {
        process.stderr.write(`${scenario.id}: pending (${scenario.pending})\n`);
        continue;
      }
      process.stderr.write(`${scenario.id}: ${scenario.title} ...\n`);
      const started = Date.now();
      const outcome = await scenario.run(ctx);
      const row: Recorded = {
        id: scenario.id,
        title: scenario.title,
        goal: scenario.goal,
        ...outcome,
        when: new Date().toISOString(),
        machine: { ...host, loadAfter: loadavg().map((v) => Math.round(v * 100) / 100) },
      };
      rows.push(row);
      writeFileSync(join(RESULTS_DIR, `${scenario.id}.json`), `${JSON.stringify(row, null, 2)}\n`);
      process.stderr.write(`${scenario.id}: ${verdict(row)} in ${Math.round((Date.now() - started) / 1000)} s\n`);
    }
  } finally {
    await ctx.close();
    await dropBenchDatabase();
    await clearRedisPrefix();
  }
  updateDoc();
  const pendingRows = chosen
    .filter((s) => !s.run)
    .map((s) => ({ ...s, ours: 'pending', baseline: '-', ratio: '-', pass: false, details: {}, when: '', machine: host }));
  process.stdout.write(
    `\n${markdownTable([...rows, ...pendingRows])}\n\nMachine: ${describe({ ...host, loadAfter: loadavg().map((v) => Math.round(v * 100) / 100) })}\n`,
  );
  process.exitCode = rows.every((r) => r.pass && !r.dishonest) ? 0 : 1;
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
