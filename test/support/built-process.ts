import { ChildProcess, spawn } from 'node:child_process';
import { appEnvironment } from './test-env';
import { join } from 'node:path';
import { waitUntil } from './wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require('../../scripts/ensure-built.js') as { ensureBuilt: () => void };

/** A log line of the child (pino JSON). */
export type LogLine = Record<string, unknown> & { msg?: string };

export interface BuiltProcess {
  child: ChildProcess;
  /** Its stdout so far, one parsed JSON object per line. */
  logs(): LogLine[];
  stdout(): string;
  stderr(): string;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A script of the BUILT app (`dist/<script>`, rebuilt first when a source file is newer) as a real
 * child process logging at info, resolved once it has logged `startedMsg`.
 */
export async function spawnBuilt(
  script: string,
  env: Record<string, string>,
  startedMsg: string,
  timeoutMs: number,
): Promise<BuiltProcess> {
  ensureBuilt();
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', script)], {
    env: { ...appEnvironment(env), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // Parsed once, as lines complete: tests poll logs() often, and reparsing all of a busy child's output
  // on every poll would load the test process (which also sends the child its requests) more than the child.
  const parsed: LogLine[] = [];
  let parsedUpTo = 0;
  const logs = () => {
    const end = stdout.lastIndexOf('\n') + 1;
    if (end > parsedUpTo) {
      for (const line of stdout.slice(parsedUpTo, end).split('\n')) if (line.startsWith('{')) parsed.push(JSON.parse(line) as LogLine);
      parsedUpTo = end;
    }
    return parsed.slice();
  };
  try {
    await waitUntil(
      async () => child.exitCode !== null || logs().some((line) => line.msg === startedMsg),
      timeoutMs,
      `${script} to log '${startedMsg}'`,
    );
  } catch (error) {
    // A process that did not start in time would otherwise go on running (and loading the machine) after the test.
    child.kill('SIGKILL');
    throw error;
  }
  if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}: ${stderr}`);
  return { child, logs, stdout: () => stdout, stderr: () => stderr, exited };
}
