import { execFile } from 'node:child_process';
import { appEnvironment } from '../support/test-env';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DIST = join(__dirname, '..', '..', 'dist');

/** Runs a built entry point with the run's environment plus overrides (cwd outside the repo: no .env). */
function runBuilt(entry: string, overrides: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(DIST, entry)],
      { env: appEnvironment(overrides), cwd: tmpdir(), timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('start-up with a bad configuration (built processes)', () => {
  it('the API exits non-zero with one stderr line naming PORT', async () => {
    const result = await runBuilt('main.js', { PORT: 'abc' });
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBe(-1); // exited by itself, not killed by the timeout
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([expect.stringMatching(/PORT/)]);
    expect(lines[0]).toMatch(/PORT: .*abc/);
  });

  it('the API refuses ALLOW_PRIVATE_URLS=true in production in one line', async () => {
    const result = await runBuilt('main.js', {
      NODE_ENV: 'production',
      CURSOR_SECRET: 'a-production-secret-of-32-chars!',
      ALLOW_PRIVATE_URLS: 'true',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/ALLOW_PRIVATE_URLS: /)]);
  });

  it('the API refuses TEST_HELPERS_ENABLED=true in production in one line', async () => {
    const result = await runBuilt('main.js', {
      NODE_ENV: 'production',
      CURSOR_SECRET: 'a-production-secret-of-32-chars!',
      ALLOW_PRIVATE_URLS: 'false',
      TEST_HELPERS_ENABLED: 'true',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/TEST_HELPERS_ENABLED: /)]);
  });

  it('the worker exits non-zero with one stderr line naming the variable', async () => {
    const result = await runBuilt('worker.js', { REDIS_URL: 'http://cache:6379' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/REDIS_URL: /)]);
  });
});
