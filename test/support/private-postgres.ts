import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { migrate } from '../../src/database/migrate';
import { freePort } from './private-services';
import { waitUntil } from './wait';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test file's own, for tests that stop the database: Debian's server binaries
 * (`pg_config --bindir`), a data directory in a temporary directory, a free port on 127.0.0.1, fsync off.
 * The machine's shared cluster is never touched. initdb and postgres refuse to run as root, so as root
 * they run as the `postgres` user, in a directory that user owns.
 */
export interface PrivatePostgres {
  port: number;
  /** URL of `database` on this cluster (as the `postgres` superuser, trust authentication). */
  url(database: string): string;
  /** Creates a database and runs the migrations on it; returns its URL. */
  createMigratedDatabase(database: string): Promise<string>;
  /** Creates `to` as a copy of `from` (CREATE DATABASE … TEMPLATE), schema and rows included. */
  copyDatabase(from: string, to: string): Promise<void>;
  /** Stops the server: `fast` ends sessions (57P01) and checkpoints, `immediate` kills them (a crash, recovered at start). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (immediate) and removes its directory. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bindir = (await run('pg_config', ['--bindir'])).stdout.trim();
  const asRoot = process.getuid?.() === 0;
  // As root, everything runs as postgres: initdb and postgres refuse root.
  const exec = (binary: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bindir, binary), ...args]) : run(join(bindir, binary), args);

  const dir = mkdtempSync(join(tmpdir(), 'pop-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await exec('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const serverOptions = [`-k ${dir}`, `-p ${port}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c shared_buffers=32MB'].join(' ');
  const pgCtl = (args: string[]) => exec('pg_ctl', ['-D', data, ...args]);

  const start = async () => {
    await pgCtl(['-l', join(dir, 'server.log'), '-o', serverOptions, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate') => {
    await pgCtl(['-m', mode, '-w', '-t', '60', 'stop']);
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  const onAdmin = async (sql: string) => {
    const admin = new Client({ connectionString: url('postgres') });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };

  await start();
  return {
    port,
    url,
    start,
    stop,
    createMigratedDatabase: async (database) => {
      await onAdmin(`CREATE DATABASE "${database}"`);
      await migrate({ databaseUrl: url(database), isProduction: false });
      return url(database);
    },
    copyDatabase: async (from, to) => {
      // A template must have no session: the last ones of whoever used it may still be closing.
      await waitUntil(
        () =>
          onAdmin(`CREATE DATABASE "${to}" TEMPLATE "${from}"`).then(
            () => true,
            (error: Error) => {
              if (!/being accessed by other users/.test(error.message)) throw error;
              return false;
            },
          ),
        30_000,
        `a copy of ${from}`,
        200,
      );
    },
    destroy: async () => {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
