import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from './env';

export const ROOT = join(__dirname, '..', '..', '..');
const PROBE = join(__dirname, 'probe.js');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Probe {
  rssMb: number;
  heapUsedMb: number;
  loopDelayMs: { p50: number; p99: number; max: number };
}

/** A child process of the run; `probe()` reads what bench/support/probe.ts last wrote for it. */
export class BenchProcess {
  private exited: Promise<void>;
  private done = false;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    private readonly probeFile?: string,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        this.done = true;
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * CPU time (user + system, ms) the process has used so far, from /proc (Linux): the work a request
   * costs, read as the difference around a load, whatever else shares the machine.
   */
  cpuMs(): number {
    const fields = readFileSync(`/proc/${this.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }

  /** Starts a fresh measurement window for the event-loop delay histogram (within a second). */
  resetProbe(): void {
    if (this.probeFile) writeFileSync(`${this.probeFile}.reset`, '');
  }

  probe(): Probe {
    if (!this.probeFile) throw new Error(`${this.name} runs without the probe`);
    return JSON.parse(readFileSync(this.probeFile, 'utf8')) as Probe;
  }

  /** Ends it at once (the driver is exiting and cannot wait). */
  kill(): void {
    if (!this.done) this.child.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    if (!this.done) this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(killer);
  }
}

/** `node [--require probe] <script>` with exactly `env`; its stderr is shown (a crash explains itself). */
export function startNode(name: string, script: string, env: Env, options: { probe?: boolean; args?: string[] } = {}): BenchProcess {
  const probeFile = options.probe ? join(mkdtempSync(join(tmpdir(), 'bench-probe-')), `${name}.json`) : undefined;
  // BENCH_CPU_PROF=<dir>: the API and worker write a CPU profile there when they exit (for finding where time goes).
  const profile = probeFile && process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_FLAGS="--flag …": extra V8/Node flags for the API and worker (trying a setting side by side).
  const flags = probeFile ? (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean) : [];
  const args = [...profile, ...flags, ...(probeFile ? ['--require', PROBE] : []), script, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: probeFile ? { ...env, BENCH_PROBE_FILE: probeFile } : env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.resume();
  return new BenchProcess(name, child, probeFile);
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until GET <origin><path> answers 200. */
export function waitForHttp(origin: string, path: string, process?: BenchProcess): Promise<void> {
  return waitFor(`${origin}${path}`, async () => {
    if (process && process.child.exitCode !== null) throw new Error(`${process.name} exited with ${process.child.exitCode}`);
    const res = await fetch(`${origin}${path}`);
    await res.arrayBuffer();
    return res.status === 200;
  });
}

/** The API from dist/ on a free port, ready to serve. */
export async function startApi(name: string, env: Env): Promise<{ process: BenchProcess; origin: string }> {
  const port = await freePort();
  const process = startNode(name, join(ROOT, 'dist', 'main.js'), { ...env, PORT: String(port) }, { probe: true });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(origin, '/v1/health', process);
  return { process, origin };
}

/** The worker from dist/; it has no readiness signal, so the caller waits for the work it expects. */
export function startWorker(name: string, env: Env): BenchProcess {
  return startNode(name, join(ROOT, 'dist', 'worker.js'), env, { probe: true });
}

/** Short-lived children (load generators, ceilings) still running: ended with the driver, whatever ends it. */
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/** Runs a bench child script to completion and returns the JSON it prints on stdout. */
export function runJson<T>(script: string, input: unknown, env: Env = { PATH: process.env.PATH ?? '' }): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(input)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    running.add(child);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('exit', (code) => {
      running.delete(child);
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}
