import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { LogLine } from './worker-process';
import { waitUntil } from './wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require('../../scripts/ensure-built.js') as { ensureBuilt: () => void };

export interface ApiProcess {
  child: ChildProcess;
  url: string;
  logs(): LogLine[];
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The BUILT API (`dist/main.js`) as a real child process on `port`, once it has logged that it started. */
export async function spawnApiProcess(port: number, env: Record<string, string>): Promise<ApiProcess> {
  ensureBuilt();
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'info' },
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
  await waitUntil(
    async () => child.exitCode !== null || logs().some((line) => line.msg === 'api started'),
    30_000,
    'the API process to start',
  );
  if (child.exitCode !== null) throw new Error(`API exited with ${child.exitCode}: ${stderr}`);
  return { child, url: `http://127.0.0.1:${port}`, logs, output: () => stdout + stderr, exited };
}
