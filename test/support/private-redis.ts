import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { waitUntil } from './wait';

/** A free loopback port, found by letting the OS pick one and releasing it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PrivateRedis {
  url: string;
  /** Kills this server (only this one: the shared Redis is never touched). */
  stop(): Promise<void>;
}

/** A throw-away redis-server for tests that need Redis to die: no persistence, its own port. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  try {
    await waitUntil(
      () =>
        probe.ping().then(
          (reply) => reply === 'PONG',
          () => false,
        ),
      10_000,
      `redis-server on port ${port}`,
    );
  } finally {
    probe.disconnect();
  }
  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  return {
    url,
    stop: async () => {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}
