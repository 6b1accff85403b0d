import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/**
 * Runs the BUILT admin CLI (`npm test` builds first; run `npm run build` when
 * iterating) with the run's environment, which global-setup put in process.env.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a command that must succeed and returns its one JSON line. */
export async function cliJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await runCli(args);
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
