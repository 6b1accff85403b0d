import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './private-services';
import { waitUntil } from './wait';

/**
 * A private PgBouncer (`executable`: Debian's, as scripts/test-prerequisites.js found it) in front of a PostgreSQL
 * server, on a free port of 127.0.0.1, as a managed service or a vendor's pooler would run it:
 * transaction pooling, every database of the server reachable under its own name. It authenticates
 * nobody (`auth_type = trust`, the server's own trust still applies) and changes nothing on the server.
 */
export interface PgBouncer {
  /** The server URL with PgBouncer's host and port instead (same user and database). */
  url: string;
  port: number;
  /** One command on PgBouncer's admin console (`SHOW POOLS`, `PAUSE db`, `KILL db`, `RESUME db`). */
  admin(command: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  poolMode?: 'transaction' | 'session';
  /** Server connections per database; the default is one app pool's (20). */
  poolSize?: number;
}

export async function startPgBouncer(
  executable: string,
  serverUrl: string,
  { poolMode = 'transaction', poolSize = 20 }: PgBouncerOptions = {},
): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pop-pgbouncer-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `admin_users = ${user}`,
      `pool_mode = ${poolMode}`,
      // As many clients as the run's app pools open.
      'max_client_conn = 2000',
      `default_pool_size = ${poolSize}`,
      // Give idle server connections back soon: the machine's PostgreSQL is shared by parallel runs.
      'server_idle_timeout = 10',
      // A database the run creates or drops must not leave its pool refusing logins for 15 s.
      'server_login_retry = 1',
      'log_connections = 0',
      'log_disconnections = 0',
      // PgBouncer refuses to run as root; it drops to this user after reading its files.
      ...(process.getuid?.() === 0 ? ['user = nobody'] : []),
    ].join('\n'),
  );

  const output: string[] = [];
  const child: ChildProcess = spawn(executable, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  // A run that ends without stopping it (a crash) must not leave it behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const through = new URL(serverUrl);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  const admin = async (command: string) => {
    const adminUrl = new URL(through);
    adminUrl.pathname = '/pgbouncer';
    const client = new Client({ connectionString: adminUrl.toString() });
    await client.connect();
    try {
      // The admin console speaks the simple query protocol only (no parameters).
      return (await client.query(command)).rows;
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM'); // immediate shutdown: clients are gone by now
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${output.join('').trim()}`);
        return admin('SHOW VERSION').then(
          () => true,
          () => false,
        );
      },
      10_000,
      `pgbouncer on port ${port}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: through.toString(), port, admin, stop };
}
