import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitUntil } from './wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require('../../scripts/ensure-built.js') as { ensureBuilt: () => void };

const WORKER = join(__dirname, '..', '..', 'dist', 'worker.js');

/** A log line of the child (pino JSON). */
export type LogLine = Record<string, unknown> & { msg?: string };

export interface WorkerProcess {
  child: ChildProcess;
  /** Its stdout so far, one parsed JSON object per line. */
  logs(): LogLine[];
  stderr(): string;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The BUILT worker (`dist/worker.js`, rebuilt first when a source file is newer) as a real child
 * process, for tests that kill it or send it signals. Resolves once it has logged that it started.
 */
export async function spawnWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  ensureBuilt();
  const child = spawn(process.execPath, [WORKER], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const logs = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const worker: WorkerProcess = { child, logs, stderr: () => stderr, exited };
  await waitUntil(
    async () => child.exitCode !== null || logs().some((line) => line.msg === 'worker started'),
    20_000,
    'the worker process to start',
  );
  if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}: ${stderr}`);
  return worker;
}
