import { BuiltProcess, spawnBuilt } from './built-process';

export interface ApiProcess extends Omit<BuiltProcess, 'stdout' | 'stderr'> {
  url: string;
  output(): string;
}

/** The BUILT API (`dist/main.js`) as a real child process on `port`, once it has logged that it started. */
export async function spawnApiProcess(port: number, env: Record<string, string>, timeoutMs = 30_000): Promise<ApiProcess> {
  const api = await spawnBuilt('main.js', { ...env, PORT: String(port) }, 'api started', timeoutMs);
  return { ...api, url: `http://127.0.0.1:${port}`, output: () => api.stdout() + api.stderr() };
}
