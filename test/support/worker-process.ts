import { BuiltProcess, spawnBuilt } from './built-process';

export type { LogLine } from './built-process';

export type WorkerProcess = Omit<BuiltProcess, 'stdout'>;

/**
 * The BUILT worker (`dist/worker.js`) as a real child process, for tests that kill it or send it signals;
 * resolved once started, failing past `startWithinMs` (on a loaded machine a boot can take 15 s and more).
 */
export function spawnWorkerProcess(env: Record<string, string>, startWithinMs = 20_000): Promise<WorkerProcess> {
  return spawnBuilt('worker.js', env, 'worker started', startWithinMs);
}
